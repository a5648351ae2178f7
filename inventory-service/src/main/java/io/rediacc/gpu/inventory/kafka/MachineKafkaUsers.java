package io.rediacc.gpu.inventory.kafka;

import io.rediacc.gpu.api.problem.ApiProblem;
import io.rediacc.gpu.api.problem.ProblemType;
import io.rediacc.gpu.contracts.api.MachineKafkaUser;
import io.rediacc.gpu.contracts.kafka.KafkaAccess;
import io.rediacc.gpu.contracts.kafka.KafkaAcls;
import io.rediacc.gpu.inventory.config.InventoryConfig;
import io.smallrye.common.annotation.Identifier;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.config.SaslConfigs;
import org.jboss.logging.Logger;

import java.util.HashMap;
import java.util.Map;

/**
 * Machines' Kafka users, one per machine ({@code machine-<name>}, contracts {@link KafkaAccess}): created by
 * {@code rdc machine setup} with the password it keeps on the machine, deleted by {@code rdc machine remove} and,
 * whether or not this service was up then, when it reads the machine's signed removal ({@link KafkaUserRemovals}).
 * Each change runs under the machine's user lock and settles a pending deletion: a new user cancels it.
 * The service's Admin client is made on first use from its {@code kafka.*} settings, logged in as
 * {@code inventory.kafka-users.admin-username} when set.
 */
@ApplicationScoped
public class MachineKafkaUsers {

    private static final Logger LOG = Logger.getLogger(MachineKafkaUsers.class);

    private final InventoryConfig.KafkaUsers config;
    private final Map<String, Object> kafka;
    private final Pool pool;
    private Admin admin;

    public MachineKafkaUsers(InventoryConfig config, @Identifier("default-kafka-broker") Map<String, Object> kafka, Pool pool) {
        this.config = config.kafkaUsers();
        this.kafka = kafka;
        this.pool = pool;
    }

    /** Creates or updates the machine's user with {@code password}: credential, exactly its ACLs, its quota. */
    public MachineKafkaUser ensure(String machine, String password, String actor) {
        String principal = KafkaAccess.machinePrincipal(machine);
        managed(machine);
        KafkaAccess.Quota quota = new KafkaAccess.Quota(config.producerByteRate(), config.consumerByteRate(),
                config.requestPercentage());
        // the machine rejoined: a deletion still pending from its earlier removal is cancelled, under the same lock
        return KafkaUserRemovals.locked(pool, machine, false, () -> {
            try {
                boolean existed = KafkaAcls.ensureUser(admin(), principal, password, KafkaAccess.Role.MACHINE, machine, quota,
                        config.timeout());
                LOG.infof("Kafka user %s %s by %s (ACLs of a machine, quota %d B/s produce, %d B/s fetch)", principal,
                        existed ? "updated" : "created", actor, quota.producerByteRate(), quota.consumerByteRate());
                return new MachineKafkaUser(machine, principal, KafkaAccess.MECHANISM, existed, true);
            } catch (KafkaAcls.KafkaAdminException e) {
                throw unavailable(principal, e);
            }
        });
    }

    /** Deletes the machine's user (credential, ACLs, quota): its clients cannot log in or act any more. */
    public MachineKafkaUser remove(String machine, String actor) {
        String principal = KafkaAccess.machinePrincipal(machine);
        managed(machine);
        return KafkaUserRemovals.locked(pool, machine, false, () -> {
            try {
                boolean existed = KafkaAcls.removeUser(admin(), principal, config.timeout());
                LOG.infof("Kafka user %s %s by %s", principal, existed ? "deleted" : "was absent; its ACLs and quota removed", actor);
                return new MachineKafkaUser(machine, principal, KafkaAccess.MECHANISM, existed, false);
            } catch (KafkaAcls.KafkaAdminException e) {
                throw unavailable(principal, e);
            }
        });
    }

    /**
     * The deletion a machine's removal asks for ({@link KafkaUserRemovals}, already under the machine's user lock):
     * whether the user existed; {@link KafkaAcls.KafkaAdminException} when the broker did not do it.
     */
    boolean deleteAfterRemoval(String machine) {
        return KafkaAcls.removeUser(admin(), KafkaAccess.machinePrincipal(machine), config.timeout());
    }

    private void managed(String machine) {
        if (!config.enabled()) {
            throw new ApiProblem(ProblemType.KAFKA_USERS_NOT_MANAGED, "this inventory-service does not manage Kafka users"
                    + " (inventory.kafka-users.enabled=false)", "create the Kafka user " + KafkaAccess.machinePrincipal(machine)
                    + " where your cluster's users are managed (deploy/kubernetes/machine-kafka-user.yaml for Strimzi)");
        }
    }

    private static ApiProblem unavailable(String principal, KafkaAcls.KafkaAdminException e) {
        LOG.warnf("Kafka user %s: %s", principal, e.getMessage());
        return new ApiProblem(ProblemType.KAFKA_UNAVAILABLE, "the Kafka user " + principal + " could not be changed: "
                + e.getMessage(), "retry; if Kafka refuses, inventory.kafka-users.admin-username needs Alter and AlterConfigs"
                + " on the cluster");
    }

    private synchronized Admin admin() {
        if (admin == null) {
            Map<String, Object> c = new HashMap<>();
            kafka.forEach((k, v) -> {
                if (AdminClientConfig.configNames().contains(k)) {
                    c.put(k, v);
                }
            });
            if (config.adminUsername().isPresent()) {
                c.put(SaslConfigs.SASL_JAAS_CONFIG, KafkaAccess.jaasConfig(config.adminUsername().get(),
                        config.adminPassword().orElseThrow(() -> new IllegalStateException(
                                "inventory.kafka-users.admin-username is set without inventory.kafka-users.admin-password"))));
            }
            c.put(AdminClientConfig.CLIENT_ID_CONFIG, "inventory-service-kafka-users");
            c.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, (int) config.timeout().toMillis());
            c.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, (int) Math.min(config.timeout().toMillis(), 10_000));
            admin = Admin.create(c);
        }
        return admin;
    }

    @PreDestroy
    synchronized void close() {
        if (admin != null) {
            admin.close(java.time.Duration.ofSeconds(2));
        }
    }
}
