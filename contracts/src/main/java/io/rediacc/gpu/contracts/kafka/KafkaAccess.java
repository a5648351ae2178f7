package io.rediacc.gpu.contracts.kafka;

import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.contracts.identity.Identifiers;

import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * Who may write and read each topic of {@link Topics}: the one ACL table of the product. The local
 * fleet's broker, inventory-service's machine users ({@link KafkaAcls}) and the tests that check
 * {@code deploy/kubernetes}'s KafkaUsers all take it from here, so topics and ACLs cannot drift: a
 * topic in {@link Topics#ALL} without a row here fails this class's initialisation.
 *
 * <p>Every machine has a Kafka user of its own, {@code machine-<name>} ({@link #machinePrincipal});
 * its node-agent and its docker-gate share it: they share the machine's signing key already, so a
 * second user would split nothing a compromised host could not join again. Kafka ACLs are per topic,
 * never per record key: that a machine speaks only for itself stays the signature's job
 * (docs/SECURITY.md); the user buys attribution, a quota of its own and revocation at removal.
 */
public final class KafkaAccess {

    /** The roles of the table; a machine role is instantiated per machine ({@link #machinePrincipal}). */
    public enum Role {
        /** node-agent and docker-gate of one machine: principal {@code machine-<name>}. */
        MACHINE,
        GRANT_SERVICE,
        INVENTORY_SERVICE,
        /** dashboards, alerting, an auditor's kcat: reads everything, writes nothing. */
        MONITORING
    }

    /** Kafka ACL operations this table uses (Kafka's {@code AclOperation} of the same name). */
    public enum Operation {
        READ, WRITE, DESCRIBE
    }

    /** Kafka resource types this table uses (Kafka's {@code ResourceType} of the same name). */
    public enum Resource {
        TOPIC, GROUP
    }

    /** One allow rule: operations on a resource, literal or by name prefix. */
    public record Acl(Resource resource, String name, boolean prefix, Set<Operation> operations) {
        public Acl {
            operations = Set.copyOf(operations);
        }
    }

    /** A principal's broker quota (Kafka's client quotas {@code producer_byte_rate}, {@code consumer_byte_rate}, {@code request_percentage}). */
    public record Quota(long producerByteRate, long consumerByteRate, double requestPercentage) {
    }

    /** The SASL mechanism of every user. */
    public static final String MECHANISM = "SCRAM-SHA-512";
    /** Prefix of a machine's user name: {@code machine-gpu-host-1}. */
    public static final String MACHINE_PREFIX = "machine-";
    /** The principal names of the services and of monitoring. */
    public static final String GRANT_SERVICE = "grant-service";
    public static final String INVENTORY_SERVICE = "inventory-service";
    public static final String MONITORING = "monitoring";

    /**
     * Each topic's writers. grant-service writes inventories and gate statuses only as the removal
     * path's tombstones (null values; the signature rule lets nobody else's tombstone count).
     */
    private static final Map<String, Set<Role>> WRITERS = Map.of(
            Topics.INVENTORY, EnumSet.of(Role.MACHINE, Role.GRANT_SERVICE),
            Topics.GRANTS, EnumSet.of(Role.GRANT_SERVICE),
            Topics.GRANT_EVENTS, EnumSet.of(Role.GRANT_SERVICE),
            Topics.GATE_STATUS, EnumSet.of(Role.MACHINE, Role.GRANT_SERVICE),
            Topics.GATE_DECISIONS, EnumSet.of(Role.MACHINE));

    /** Each topic's readers (inventory-service reads the last three for its dashboard). */
    private static final Map<String, Set<Role>> READERS = Map.of(
            Topics.INVENTORY, EnumSet.of(Role.GRANT_SERVICE, Role.INVENTORY_SERVICE, Role.MONITORING),
            Topics.GRANTS, EnumSet.of(Role.MACHINE, Role.INVENTORY_SERVICE, Role.MONITORING),
            Topics.GRANT_EVENTS, EnumSet.of(Role.INVENTORY_SERVICE, Role.MONITORING),
            Topics.GATE_STATUS, EnumSet.of(Role.GRANT_SERVICE, Role.INVENTORY_SERVICE, Role.MONITORING),
            Topics.GATE_DECISIONS, EnumSet.of(Role.INVENTORY_SERVICE, Role.MONITORING));

    static {
        for (Topics.TopicSpec t : Topics.ALL) {
            if (!WRITERS.containsKey(t.name()) || !READERS.containsKey(t.name())) {
                throw new IllegalStateException("topic " + t.name() + " has no row in KafkaAccess: say who writes and reads it");
            }
        }
        if (WRITERS.size() != Topics.ALL.size() || READERS.size() != Topics.ALL.size()) {
            throw new IllegalStateException("KafkaAccess names a topic that Topics.ALL does not hold");
        }
    }

    /** What a machine's password may hold: it goes between double quotes into a JAAS line. */
    private static final java.util.regex.Pattern PASSWORD = java.util.regex.Pattern.compile("[A-Za-z0-9_-]{32,128}");

    private KafkaAccess() {
    }

    /** Whether a password is one this product hands out: 32-128 characters of {@code [A-Za-z0-9_-]}. */
    public static boolean validPassword(String password) {
        return password != null && PASSWORD.matcher(password).matches();
    }

    /** The client's JAAS line for a SCRAM user; a password with a quote, backslash, space or control character is refused. */
    public static String jaasConfig(String user, String password) {
        if (password == null || !password.matches("[\\x21\\x23-\\x5b\\x5d-\\x7e]+") || !user.matches("[A-Za-z0-9._-]+")) {
            throw new IllegalArgumentException("a Kafka user name or password with characters a JAAS line cannot hold");
        }
        return "org.apache.kafka.common.security.scram.ScramLoginModule required username=\"" + user + "\" password=\""
                + password + "\";";
    }

    /** The Kafka user of a machine: {@code machine-<name>}; the name is checked like every machine name. */
    public static String machinePrincipal(String machine) {
        return MACHINE_PREFIX + Identifiers.machine(machine);
    }

    /** The machine a user name belongs to, when it is a machine's user. */
    public static Optional<String> machineOf(String principal) {
        if (principal == null || !principal.startsWith(MACHINE_PREFIX)) {
            return Optional.empty();
        }
        String name = principal.substring(MACHINE_PREFIX.length());
        return Identifiers.isMachine(name) ? Optional.of(name) : Optional.empty();
    }

    /** The topics {@code role} writes, in {@link Topics#ALL}'s order. */
    public static List<String> writes(Role role) {
        return Topics.ALL.stream().map(Topics.TopicSpec::name).filter(t -> WRITERS.get(t).contains(role)).toList();
    }

    /** The topics {@code role} reads, in {@link Topics#ALL}'s order. */
    public static List<String> reads(Role role) {
        return Topics.ALL.stream().map(Topics.TopicSpec::name).filter(t -> READERS.get(t).contains(role)).toList();
    }

    /**
     * The consumer-group prefix of a role: a machine's gates use {@code gate-<machine>-<gateId>}
     * (docker-gate's {@code Gate}), the services their own names, monitoring {@code monitoring*}.
     *
     * @param machine the machine, for {@link Role#MACHINE}; ignored otherwise
     */
    public static String groupPrefix(Role role, String machine) {
        return switch (role) {
            case MACHINE -> "gate-" + Identifiers.machine(machine) + "-";
            case GRANT_SERVICE -> GRANT_SERVICE;
            case INVENTORY_SERVICE -> INVENTORY_SERVICE;
            case MONITORING -> MONITORING;
        };
    }

    /**
     * The allow rules of a role: {@code Write, Describe} on each topic it writes, {@code Read, Describe}
     * on each it reads (both when it does both), {@code Read, Describe} on its group prefix. Nothing
     * else: no cluster rights, no topic creation, no ACLs (a write on a topic implies idempotent
     * producing since Kafka 3.0).
     *
     * @param machine the machine, for {@link Role#MACHINE}; ignored otherwise
     */
    public static List<Acl> acls(Role role, String machine) {
        Map<String, Set<Operation>> topics = new LinkedHashMap<>();
        for (String t : writes(role)) {
            topics.computeIfAbsent(t, k -> EnumSet.noneOf(Operation.class)).addAll(List.of(Operation.WRITE, Operation.DESCRIBE));
        }
        for (String t : reads(role)) {
            topics.computeIfAbsent(t, k -> EnumSet.noneOf(Operation.class)).addAll(List.of(Operation.READ, Operation.DESCRIBE));
        }
        List<Acl> acls = new ArrayList<>();
        // in Topics.ALL's order, whatever order writes and reads were merged in
        for (Topics.TopicSpec t : Topics.ALL) {
            if (topics.containsKey(t.name())) {
                acls.add(new Acl(Resource.TOPIC, t.name(), false, topics.get(t.name())));
            }
        }
        if (!reads(role).isEmpty()) {
            acls.add(new Acl(Resource.GROUP, groupPrefix(role, machine), true, EnumSet.of(Operation.READ, Operation.DESCRIBE)));
        }
        return acls;
    }
}
