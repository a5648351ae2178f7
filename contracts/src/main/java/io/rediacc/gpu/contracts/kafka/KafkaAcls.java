package io.rediacc.gpu.contracts.kafka;

import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialDeletion;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.admin.UserScramCredentialsDescription;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AccessControlEntryFilter;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.ResourceNotFoundException;
import org.apache.kafka.common.quota.ClientQuotaAlteration;
import org.apache.kafka.common.quota.ClientQuotaEntity;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourcePatternFilter;
import org.apache.kafka.common.resource.ResourceType;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * {@link KafkaAccess}'s table applied to a broker with Kafka's Admin API: a user's SCRAM-SHA-512
 * credential, exactly its role's ACLs (others of the principal removed) and its quota; and a user's
 * removal (credential, ACLs, quota). Used by inventory-service for machines ({@code PUT/DELETE
 * /api/v1/machines/{m}/kafka-user}, what {@code rdc machine setup} and {@code rdc machine remove}
 * call) and by the local fleet for every user. The caller's Admin must be allowed to alter the
 * cluster (a super user, or {@code Alter}/{@code AlterConfigs} on the cluster).
 */
public final class KafkaAcls {

    /** SCRAM iterations, as Strimzi's user operator uses. */
    public static final int ITERATIONS = 4096;

    private KafkaAcls() {
    }

    /** The Kafka ACL bindings of {@code principal} in {@code role}. */
    public static List<AclBinding> bindings(String principal, KafkaAccess.Role role, String machine) {
        List<AclBinding> out = new ArrayList<>();
        for (KafkaAccess.Acl acl : KafkaAccess.acls(role, machine)) {
            ResourcePattern pattern = new ResourcePattern(acl.resource() == KafkaAccess.Resource.TOPIC ? ResourceType.TOPIC
                    : ResourceType.GROUP, acl.name(), acl.prefix() ? PatternType.PREFIXED : PatternType.LITERAL);
            for (KafkaAccess.Operation op : acl.operations()) {
                out.add(new AclBinding(pattern, new AccessControlEntry("User:" + principal, "*", AclOperation.valueOf(op.name()),
                        AclPermissionType.ALLOW)));
            }
        }
        return out;
    }

    /**
     * Creates or updates {@code principal}: its SCRAM credential with {@code password}, exactly the ACLs of
     * {@code role} (any other ACL of the principal is deleted) and, unless null, its quota.
     *
     * @return whether the user had a SCRAM credential already
     */
    public static boolean ensureUser(Admin admin, String principal, String password, KafkaAccess.Role role, String machine,
                                     KafkaAccess.Quota quota, Duration timeout) {
        if (!KafkaAccess.validPassword(password)) {
            throw new IllegalArgumentException("a Kafka password must be 32-128 characters of A-Z, a-z, 0-9, '_' or '-'");
        }
        boolean existed = ensureCredential(admin, principal, password, timeout);
        ensureAcls(admin, principal, bindings(principal, role, machine), timeout);
        if (quota != null) {
            get(admin.alterClientQuotas(List.of(new ClientQuotaAlteration(entity(principal), List.of(
                    new ClientQuotaAlteration.Op("producer_byte_rate", (double) quota.producerByteRate()),
                    new ClientQuotaAlteration.Op("consumer_byte_rate", (double) quota.consumerByteRate()),
                    new ClientQuotaAlteration.Op("request_percentage", quota.requestPercentage()))))).all(), timeout);
        }
        return existed;
    }

    /** Sets {@code principal}'s SCRAM-SHA-512 credential; returns whether it had one. */
    public static boolean ensureCredential(Admin admin, String principal, String password, Duration timeout) {
        boolean existed = hasCredential(admin, principal, timeout);
        get(admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(principal,
                new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, ITERATIONS), password))).all(), timeout);
        return existed;
    }

    /** Makes {@code wanted} the principal's ACLs: those missing are created, any other of the principal deleted. */
    public static void ensureAcls(Admin admin, String principal, List<AclBinding> wanted, Duration timeout) {
        Set<AclBinding> stale = new HashSet<>(get(admin.describeAcls(filter(principal)).values(), timeout));
        wanted.forEach(stale::remove);
        if (!stale.isEmpty()) {
            get(admin.deleteAcls(stale.stream().map(AclBinding::toFilter).toList()).all(), timeout);
        }
        get(admin.createAcls(wanted).all(), timeout);
    }

    /**
     * The ACLs of the user that manages machines' users (inventory-service's {@code inventory.kafka-users.admin-username}):
     * {@code Alter}, {@code AlterConfigs}, {@code Describe} and {@code DescribeConfigs} on the cluster (SCRAM
     * credentials, ACLs, quotas), nothing on a topic or group. Alter on the cluster can write any ACL: such a login
     * is as strong as a super user, and is kept like one.
     */
    public static List<AclBinding> userAdminBindings(String principal) {
        List<AclBinding> out = new ArrayList<>();
        for (AclOperation op : List.of(AclOperation.ALTER, AclOperation.ALTER_CONFIGS, AclOperation.DESCRIBE,
                AclOperation.DESCRIBE_CONFIGS)) {
            out.add(new AclBinding(new ResourcePattern(ResourceType.CLUSTER, "kafka-cluster", PatternType.LITERAL),
                    new AccessControlEntry("User:" + principal, "*", op, AclPermissionType.ALLOW)));
        }
        return out;
    }

    /**
     * Removes {@code principal}: its SCRAM credential (a client logged in keeps its connection until it
     * re-authenticates or reconnects; {@code connections.max.reauth.ms} bounds that), every ACL naming it,
     * its quota.
     *
     * @return whether it had a SCRAM credential
     */
    public static boolean removeUser(Admin admin, String principal, Duration timeout) {
        boolean existed = hasCredential(admin, principal, timeout);
        // ACLs first: a connection still authenticated as the user loses its rights at once
        get(admin.deleteAcls(List.of(filter(principal))).all(), timeout);
        if (existed) {
            try {
                get(admin.alterUserScramCredentials(List.of(new UserScramCredentialDeletion(principal, ScramMechanism.SCRAM_SHA_512)))
                        .all(), timeout);
            } catch (KafkaAdminException e) {
                if (!(e.getCause() instanceof ResourceNotFoundException)) {
                    throw e;
                }
            }
        }
        get(admin.alterClientQuotas(List.of(new ClientQuotaAlteration(entity(principal), List.of(
                new ClientQuotaAlteration.Op("producer_byte_rate", null),
                new ClientQuotaAlteration.Op("consumer_byte_rate", null),
                new ClientQuotaAlteration.Op("request_percentage", null))))).all(), timeout);
        return existed;
    }

    /** Whether {@code principal} has a SCRAM credential. */
    public static boolean hasCredential(Admin admin, String principal, Duration timeout) {
        try {
            Map<String, UserScramCredentialsDescription> d = get(admin.describeUserScramCredentials(List.of(principal)).all(), timeout);
            return d.containsKey(principal) && !d.get(principal).credentialInfos().isEmpty();
        } catch (KafkaAdminException e) {
            if (e.getCause() instanceof ResourceNotFoundException) {
                return false;
            }
            throw e;
        }
    }

    /** The quota a principal has on the broker: Kafka's quota keys to their values (empty when none). */
    public static Map<String, Double> quota(Admin admin, String principal, Duration timeout) {
        var filter = org.apache.kafka.common.quota.ClientQuotaFilter.containsOnly(List.of(
                org.apache.kafka.common.quota.ClientQuotaFilterComponent.ofEntity(ClientQuotaEntity.USER, principal)));
        Map<ClientQuotaEntity, Map<String, Double>> all = get(admin.describeClientQuotas(filter).entities(), timeout);
        return all.getOrDefault(entity(principal), Map.of());
    }

    private static ClientQuotaEntity entity(String principal) {
        return new ClientQuotaEntity(Map.of(ClientQuotaEntity.USER, principal));
    }

    private static AclBindingFilter filter(String principal) {
        return new AclBindingFilter(ResourcePatternFilter.ANY, new AccessControlEntryFilter("User:" + principal, null,
                AclOperation.ANY, AclPermissionType.ANY));
    }

    /** A failed or timed-out Admin call, its cause the broker's answer. */
    public static final class KafkaAdminException extends RuntimeException {
        KafkaAdminException(String message, Throwable cause) {
            super(message, cause);
        }
    }

    private static <T> T get(org.apache.kafka.common.KafkaFuture<T> f, Duration timeout) {
        try {
            return f.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (ExecutionException e) {
            throw new KafkaAdminException("Kafka refused: " + e.getCause().getMessage(), e.getCause());
        } catch (TimeoutException e) {
            throw new KafkaAdminException("Kafka did not answer within " + timeout.toSeconds() + " s", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new KafkaAdminException("interrupted", e);
        }
    }
}
