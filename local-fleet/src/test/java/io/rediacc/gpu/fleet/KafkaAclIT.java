package io.rediacc.gpu.fleet;

import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.contracts.kafka.KafkaAccess;
import io.rediacc.gpu.contracts.kafka.KafkaAcls;
import io.rediacc.gpu.contracts.kafka.MachineKafkaEnv;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.admin.ScramCredentialInfo;
import org.apache.kafka.clients.admin.ScramMechanism;
import org.apache.kafka.clients.admin.UserScramCredentialAlteration;
import org.apache.kafka.clients.admin.UserScramCredentialUpsertion;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.acl.AccessControlEntry;
import org.apache.kafka.common.acl.AclBinding;
import org.apache.kafka.common.acl.AclBindingFilter;
import org.apache.kafka.common.acl.AclOperation;
import org.apache.kafka.common.acl.AclPermissionType;
import org.apache.kafka.common.errors.AuthorizationException;
import org.apache.kafka.common.errors.GroupAuthorizationException;
import org.apache.kafka.common.errors.SaslAuthenticationException;
import org.apache.kafka.common.errors.TopicAuthorizationException;
import org.apache.kafka.common.resource.PatternType;
import org.apache.kafka.common.resource.ResourcePattern;
import org.apache.kafka.common.resource.ResourceType;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.apache.kafka.common.serialization.ByteArraySerializer;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Who may do what on Kafka, on a real broker secured like the Kubernetes cluster (SASL_SSL,
 * SCRAM-SHA-512, {@code StandardAuthorizer}, nothing allowed without an ACL): the users and ACLs
 * are read from {@code deploy/kubernetes/kafka-users.yaml} and applied as Strimzi would, then
 * each role logs in with its own password and does what its service does, with the service's
 * real client settings and consumer groups (read from its application.properties). A change to
 * the ACL file that breaks a service, or lets a role grant, fails here.
 */
class KafkaAclIT {

    static final Path REPO = DeploymentFilesTest.REPO;
    static final Path STATE = Path.of("target/kafka-acl").toAbsolutePath();
    /** The machine user of deploy/kubernetes/machine-kafka-user.yaml (its node-agent and its gates). */
    static final String MACHINE = "machine-gpu-host-1";
    static final String GRANT_SERVICE = "grant-service";
    static final String INVENTORY_SERVICE = "inventory-service";
    static final String MONITORING = "monitoring";
    static final List<String> ALL_TOPICS = Topics.ALL.stream().map(Topics.TopicSpec::name).toList();
    /** The key of the one record the super user writes to every topic, for the readers to find. */
    static final String SEED = "acl-seed";
    static final Duration WAIT = Duration.ofSeconds(30);

    static SecureKafkaBroker broker;
    static Map<String, List<AclBinding>> acls;
    static final Map<String, String> passwords = new HashMap<>();

    @BeforeAll
    static void startBrokerWithTheDeploymentsUsersAndAcls() throws Exception {
        if (Files.exists(STATE)) {
            try (var paths = Files.walk(STATE)) {
                paths.sorted(java.util.Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
            }
        }
        long t0 = System.nanoTime();
        broker = new SecureKafkaBroker(STATE.resolve("kafka"), REPO.resolve("local-fleet/target/lib").toAbsolutePath() + "/*");
        broker.start(STATE.resolve("logs"));
        long brokerUp = System.nanoTime();
        acls = new LinkedHashMap<>(StrimziAcls.load(REPO.resolve("deploy/kubernetes/kafka-users.yaml")));
        acls.putAll(StrimziAcls.load(REPO.resolve("deploy/kubernetes/machine-kafka-user.yaml")));
        assertThat(acls).as("kafka-users.yaml: one KafkaUser per service; machine-kafka-user.yaml: one per machine")
                .containsKeys(MACHINE, GRANT_SERVICE, INVENTORY_SERVICE, MONITORING);
        try (Admin admin = Admin.create(broker.adminConfig())) {
            List<UserScramCredentialAlteration> users = new ArrayList<>();
            for (String user : acls.keySet()) {
                passwords.put(user, SecureKafkaBroker.secret());
                // Strimzi's user operator creates SCRAM-SHA-512 credentials with 4096 iterations
                users.add(new UserScramCredentialUpsertion(user, new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096),
                        passwords.get(user)));
            }
            admin.alterUserScramCredentials(users).all().get(30, TimeUnit.SECONDS);
            Set<AclBinding> all = new HashSet<>();
            acls.values().forEach(all::addAll);
            admin.createAcls(all).all().get(30, TimeUnit.SECONDS);
            awaitTrue("the broker's authorizer holds all " + all.size() + " ACLs", () ->
                    new HashSet<>(admin.describeAcls(AclBindingFilter.ANY).values().get()).containsAll(all));
        }
        Map<String, Object> seeder = producerConfig(broker.adminConfig(), true);
        try (KafkaProducer<String, byte[]> p = new KafkaProducer<>(seeder)) {
            for (String topic : ALL_TOPICS) {
                p.send(new ProducerRecord<>(topic, SEED, bytes("seed"))).get(30, TimeUnit.SECONDS);
            }
        }
        for (String user : acls.keySet()) { // SCRAM credentials reach the broker through the metadata log
            awaitTrue(user + " can log in", () -> {
                try (Admin a = Admin.create(as(user))) {
                    return a.describeCluster().clusterId().get(10, TimeUnit.SECONDS) != null;
                }
            });
        }
        System.out.printf("FIGURE kafka-acl: broker (SASL_SSL, SCRAM-SHA-512, StandardAuthorizer) up in %.1f s; %d users, "
                + "%d ACL bindings from kafka-users.yaml applied and logins working %.1f s later%n",
                (brokerUp - t0) / 1e9, acls.size(), acls.values().stream().mapToInt(List::size).sum(),
                (System.nanoTime() - brokerUp) / 1e9);
    }

    @AfterAll
    static void stopBroker() {
        if (broker != null) {
            broker.stop();
        }
    }

    @Test
    void aMachinePublishesItsInventoryStatusAndDecisionsReadsGrantsAndCannotGrant() throws Exception {
        // node-agent's InventoryAgent and docker-gate's GateEventsProducer: idempotent, acks=all
        assertWrites(MACHINE, Topics.INVENTORY);
        assertWrites(MACHINE, Topics.GATE_STATUS);
        assertWrites(MACHINE, Topics.GATE_DECISIONS);
        // docker-gate's GrantsFeed: group and client id "gate-<machine>-<gateId>" (Gate), assigned partitions, from 0
        assertThat(readLikeTheGrantsFeed(MACHINE, "gate-gpu-host-1-g1")).as("the gate's feed finds the seed grant snapshot").isTrue();
        for (String topic : List.of(Topics.GRANTS, Topics.GRANT_EVENTS)) {
            assertThat(writeFailure(MACHINE, topic)).as(MACHINE + " writing " + topic)
                    .isInstanceOf(TopicAuthorizationException.class);
        }
        for (String topic : others(Topics.GRANTS)) {
            assertThat(readFailure(MACHINE, topic)).as(MACHINE + " reading " + topic)
                    .isInstanceOf(TopicAuthorizationException.class);
        }
        // nor can a machine join grant-service's group (it would take partitions from the real consumers), nor another
        // machine's gates' groups
        assertThat(subscribeFailure(MACHINE, groupId(GRANT_SERVICE, "mp.messaging.incoming.inventory.group.id"), Topics.GRANTS))
                .isInstanceOf(GroupAuthorizationException.class);
        assertThat(subscribeFailure(MACHINE, "gate-gpu-host-2-g1", Topics.GRANTS)).isInstanceOf(GroupAuthorizationException.class);
    }

    /**
     * A machine's user as inventory-service makes it (contracts KafkaAcls, what PUT /api/v1/machines/{m}/kafka-user
     * runs), logged in as a user admin with only the cluster rights KafkaAcls.userAdminBindings names: the machine
     * writes its inventory, is refused gpu.grants.v1, has its quota; once removed (DELETE …/kafka-user) its password
     * no longer logs in and a producer it had open is refused too.
     */
    @Test
    void aMachineUserMadeAsInventoryServiceMakesItWritesOnlyWhatMachinesWriteAndStopsWhenRemoved() throws Exception {
        String userAdmin = "kafka-user-admin";
        String adminPassword = SecureKafkaBroker.secret();
        try (Admin admin = Admin.create(broker.adminConfig())) {
            KafkaAcls.ensureCredential(admin, userAdmin, adminPassword, Duration.ofSeconds(30));
            KafkaAcls.ensureAcls(admin, userAdmin, KafkaAcls.userAdminBindings(userAdmin), Duration.ofSeconds(30));
        }
        String machine = "acl-m2";
        String principal = KafkaAccess.machinePrincipal(machine);
        String password = MachineKafkaEnv.newPassword();
        KafkaAccess.Quota quota = new KafkaAccess.Quota(1_048_576, 8_388_608, 25);
        Map<String, Object> asUserAdmin = broker.clientConfig(userAdmin, adminPassword);
        awaitTrue(userAdmin + " can log in", () -> {
            try (Admin a = Admin.create(asUserAdmin)) {
                return a.describeCluster().clusterId().get(10, TimeUnit.SECONDS) != null;
            }
        });
        try (Admin admin = Admin.create(asUserAdmin)) {
            assertThat(KafkaAcls.ensureUser(admin, principal, password, KafkaAccess.Role.MACHINE, machine, quota,
                    Duration.ofSeconds(30))).as("a new user").isFalse();
            // the same password again: nothing a client sees changes, and the service can tell the user existed
            assertThat(KafkaAcls.ensureUser(admin, principal, password, KafkaAccess.Role.MACHINE, machine, quota,
                    Duration.ofSeconds(30))).as("an existing user").isTrue();
            assertThat(KafkaAcls.quota(admin, principal, Duration.ofSeconds(30))).containsEntry("producer_byte_rate", 1_048_576.0)
                    .containsEntry("consumer_byte_rate", 8_388_608.0).containsEntry("request_percentage", 25.0);
        }
        passwords.put(principal, password);
        awaitTrue(principal + " can log in", () -> {
            try (Admin a = Admin.create(as(principal))) {
                return a.describeCluster().clusterId().get(10, TimeUnit.SECONDS) != null;
            }
        });
        awaitTrue(principal + " writes its inventory", () -> writeFailure(principal, Topics.INVENTORY) == null);
        assertWrites(principal, Topics.INVENTORY);
        assertThat(writeFailure(principal, Topics.GRANTS)).as(principal + " writing " + Topics.GRANTS)
                .isInstanceOf(TopicAuthorizationException.class);
        assertThat(readLikeTheGrantsFeed(principal, "gate-" + machine + "-g1")).isTrue();

        try (KafkaProducer<String, byte[]> open = new KafkaProducer<>(producerConfig(as(principal), false))) {
            assertThat(sendFailure(open, Topics.INVENTORY)).as("before the removal").isNull();
            try (Admin admin = Admin.create(asUserAdmin)) {
                assertThat(KafkaAcls.removeUser(admin, principal, Duration.ofSeconds(30))).isTrue();
                // the controller has committed the removal; a broker's view of it follows its metadata log shortly after
                awaitTrue(principal + "'s credential gone", () -> !KafkaAcls.hasCredential(admin, principal, Duration.ofSeconds(30)));
                awaitTrue(principal + "'s quota gone", () -> KafkaAcls.quota(admin, principal, Duration.ofSeconds(30)).isEmpty());
                awaitTrue(principal + "'s ACLs gone", () -> admin.describeAcls(new AclBindingFilter(
                        org.apache.kafka.common.resource.ResourcePatternFilter.ANY, new org.apache.kafka.common.acl.AccessControlEntryFilter(
                                "User:" + principal, null, AclOperation.ANY, AclPermissionType.ANY))).values().get(10, TimeUnit.SECONDS).isEmpty());
            }
            // the connection it had open is still authenticated, but its ACLs are gone
            awaitTrue("the open producer is refused", () -> sendFailure(open, Topics.INVENTORY) instanceof AuthorizationException);
        }
        try (Admin admin = Admin.create(as(principal))) {
            assertThat(cause(admin.describeCluster().clusterId())).as("a removed machine's login")
                    .isInstanceOf(SaslAuthenticationException.class);
        }
        try (KafkaProducer<String, byte[]> p = new KafkaProducer<>(producerConfig(as(principal), true))) {
            assertThat(sendFailure(p, Topics.INVENTORY)).as("a removed machine producing").isInstanceOf(SaslAuthenticationException.class);
        }
    }

    @Test
    void grantServicePublishesGrantsAndTheAuditAndReadsInventoryAndGateStatusInItsOwnGroups() throws Exception {
        // grant-service's OutboxRelay: idempotent, acks=all, 5 in flight
        assertWrites(GRANT_SERVICE, Topics.GRANTS);
        assertWrites(GRANT_SERVICE, Topics.GRANT_EVENTS);
        // its two SmallRye channels, with the group ids of its application.properties
        assertThat(readInGroup(GRANT_SERVICE, groupId(GRANT_SERVICE, "mp.messaging.incoming.inventory.group.id"), true,
                Topics.INVENTORY)).containsExactly(Topics.INVENTORY);
        assertThat(readInGroup(GRANT_SERVICE, groupId(GRANT_SERVICE, "mp.messaging.incoming.gate-status.group.id"), false,
                Topics.GATE_STATUS)).containsExactly(Topics.GATE_STATUS);
        // the tombstones of a removed machine (DELETE /api/v1/machines/{machine}) go through its outbox
        assertWrites(GRANT_SERVICE, Topics.INVENTORY);
        assertWrites(GRANT_SERVICE, Topics.GATE_STATUS);
        for (String topic : List.of(Topics.GATE_DECISIONS)) {
            assertThat(writeFailure(GRANT_SERVICE, topic)).as("grant-service writing " + topic)
                    .isInstanceOf(TopicAuthorizationException.class);
        }
        for (String topic : List.of(Topics.GRANTS, Topics.GRANT_EVENTS, Topics.GATE_DECISIONS)) {
            assertThat(readFailure(GRANT_SERVICE, topic)).as("grant-service reading " + topic)
                    .isInstanceOf(TopicAuthorizationException.class);
        }
    }

    @Test
    void inventoryServiceReadsEveryTopicAndWritesNothing() throws Exception {
        // the read model's two topics, and the dashboard's three (grant versions, grant history, refusals)
        String group = groupId(INVENTORY_SERVICE, "mp.messaging.connector.smallrye-kafka.group.id");
        assertThat(readInGroup(INVENTORY_SERVICE, group, true, Topics.INVENTORY, Topics.GATE_STATUS, Topics.GRANTS,
                Topics.GRANT_EVENTS, Topics.GATE_DECISIONS))
                .containsExactlyInAnyOrder(Topics.INVENTORY, Topics.GATE_STATUS, Topics.GRANTS, Topics.GRANT_EVENTS,
                        Topics.GATE_DECISIONS);
        for (String topic : ALL_TOPICS) {
            assertThat(writeFailure(INVENTORY_SERVICE, topic)).as("inventory-service writing " + topic)
                    .isInstanceOf(TopicAuthorizationException.class);
        }
        // quarkus.kafka.health.enabled=true: its readiness check describes the cluster
        try (Admin admin = Admin.create(as(INVENTORY_SERVICE))) {
            assertThat(admin.describeCluster().nodes().get(10, TimeUnit.SECONDS)).hasSize(1);
        }
    }

    @Test
    void monitoringReadsEveryTopicAndIsRefusedWritingToAny() throws Exception {
        for (String topic : ALL_TOPICS) {
            // as kcat -C reads: assigned partitions from offset 0, no group
            assertThat(readFailure(MONITORING, topic)).as("monitoring reading " + topic).isNull();
            assertThat(writeFailure(MONITORING, topic)).as("monitoring writing " + topic)
                    .isInstanceOf(TopicAuthorizationException.class);
            try (KafkaProducer<String, byte[]> p = new KafkaProducer<>(producerConfig(as(MONITORING), true))) {
                // an idempotent producer is stopped earlier still: it may not even get a producer id
                assertThat(sendFailure(p, topic)).as("monitoring writing " + topic + " with an idempotent producer")
                        .isInstanceOf(AuthorizationException.class);
            }
        }
        // a dashboard's consumer in its own group, committing its offsets
        assertThat(readInGroup(MONITORING, "monitoring-dashboards", true, ALL_TOPICS.toArray(String[]::new)))
                .containsExactlyInAnyOrderElementsOf(ALL_TOPICS);
        // but never in a service's group, where it would take partitions from the real consumers
        assertThat(subscribeFailure(MONITORING, groupId(INVENTORY_SERVICE, "mp.messaging.connector.smallrye-kafka.group.id"),
                Topics.INVENTORY)).isInstanceOf(GroupAuthorizationException.class);
        assertThat(subscribeFailure(MONITORING, "gate-m1-g1", Topics.GRANTS)).isInstanceOf(GroupAuthorizationException.class);
    }

    @Test
    void onlyGrantServiceMayWriteGrantsOrTheAuditTrail() throws Exception {
        for (String user : acls.keySet()) {
            if (!user.equals(GRANT_SERVICE)) {
                for (String topic : List.of(Topics.GRANTS, Topics.GRANT_EVENTS)) {
                    assertThat(writeFailure(user, topic)).as(user + " writing " + topic)
                            .isInstanceOf(TopicAuthorizationException.class);
                }
            }
        }
    }

    @Test
    void noRoleMayCreateOrDeleteTopicsOrChangeUsersOrAcls() throws Exception {
        AclBinding selfGrant = new AclBinding(new ResourcePattern(ResourceType.TOPIC, Topics.GRANTS, PatternType.LITERAL),
                new AccessControlEntry("User:" + MACHINE, "*", AclOperation.WRITE, AclPermissionType.ALLOW));
        for (String user : acls.keySet()) {
            try (Admin admin = Admin.create(as(user))) {
                assertThat(cause(admin.createTopics(List.of(new NewTopic("gpu.grants.v2", 1, (short) 1))).all()))
                        .as(user + " creating a topic").isInstanceOf(AuthorizationException.class);
                assertThat(cause(admin.deleteTopics(List.of(Topics.GRANTS)).all()))
                        .as(user + " deleting " + Topics.GRANTS).isInstanceOf(AuthorizationException.class);
                assertThat(cause(admin.createAcls(List.of(selfGrant)).all()))
                        .as(user + " adding an ACL").isInstanceOf(AuthorizationException.class);
                assertThat(cause(admin.alterUserScramCredentials(List.of(new UserScramCredentialUpsertion(user,
                        new ScramCredentialInfo(ScramMechanism.SCRAM_SHA_512, 4096), "new-password"))).all()))
                        .as(user + " changing its password").isInstanceOf(AuthorizationException.class);
            }
        }
        // and the topics are untouched
        try (Admin admin = Admin.create(broker.adminConfig())) {
            assertThat(admin.listTopics().names().get(10, TimeUnit.SECONDS)).containsAll(ALL_TOPICS).doesNotContain("gpu.grants.v2");
        }
    }

    @Test
    void aWrongPasswordOrAnUnknownUserIsRefused() throws Exception {
        Map<String, Map<String, Object>> logins = new LinkedHashMap<>();
        logins.put("grant-service with a machine's password", broker.clientConfig(GRANT_SERVICE, passwords.get(MACHINE)));
        logins.put("a machine with a wrong password", broker.clientConfig(MACHINE, "wrong"));
        logins.put("admin with a wrong password", broker.clientConfig(SecureKafkaBroker.ADMIN, "wrong"));
        logins.put("an unknown user", broker.clientConfig("mallory", "mallory"));
        for (var login : logins.entrySet()) {
            try (Admin admin = Admin.create(login.getValue())) {
                assertThat(cause(admin.describeCluster().clusterId())).as(login.getKey())
                        .isInstanceOf(SaslAuthenticationException.class);
            }
            Map<String, Object> producer = producerConfig(login.getValue(), true);
            try (KafkaProducer<String, byte[]> p = new KafkaProducer<>(producer)) {
                assertThat(sendFailure(p, Topics.INVENTORY)).as(login.getKey() + " producing")
                        .isInstanceOf(SaslAuthenticationException.class);
            }
        }
    }

    // --- the roles' clients -------------------------------------------------------------------

    static Map<String, Object> as(String user) {
        assertThat(passwords).as("a KafkaUser named " + user).containsKey(user);
        return broker.clientConfig(user, passwords.get(user));
    }

    /** The producer settings the services use (idempotent, acks=all), or a plain one to probe a single topic. */
    static Map<String, Object> producerConfig(Map<String, Object> login, boolean idempotent) {
        Map<String, Object> c = new HashMap<>(login);
        c.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
        c.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, ByteArraySerializer.class.getName());
        c.put(ProducerConfig.ACKS_CONFIG, idempotent ? "all" : "1");
        c.put(ProducerConfig.ENABLE_IDEMPOTENCE_CONFIG, idempotent);
        c.put(ProducerConfig.MAX_IN_FLIGHT_REQUESTS_PER_CONNECTION, 5);
        c.put(ProducerConfig.LINGER_MS_CONFIG, 0);
        c.put(ProducerConfig.MAX_BLOCK_MS_CONFIG, 15_000);
        c.put(ProducerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        c.put(ProducerConfig.DELIVERY_TIMEOUT_MS_CONFIG, 20_000);
        return c;
    }

    static Map<String, Object> consumerConfig(String user, String group) {
        Map<String, Object> c = new HashMap<>(as(user));
        if (group != null) {
            c.put(ConsumerConfig.GROUP_ID_CONFIG, group);
        }
        c.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, StringDeserializer.class.getName());
        c.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
        c.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest");
        c.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
        c.put(ConsumerConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 15_000);
        c.put(ConsumerConfig.REQUEST_TIMEOUT_MS_CONFIG, 10_000);
        return c;
    }

    /** Sends one record with the service's idempotent producer; fails the test when the broker refuses it. */
    static void assertWrites(String user, String topic) throws Exception {
        try (KafkaProducer<String, byte[]> p = new KafkaProducer<>(producerConfig(as(user), true))) {
            assertThat(sendFailure(p, topic)).as(user + " writing " + topic).isNull();
        }
    }

    /** What the broker answers a plain producer of {@code user} writing to {@code topic}; null when written. */
    static Throwable writeFailure(String user, String topic) throws Exception {
        try (KafkaProducer<String, byte[]> p = new KafkaProducer<>(producerConfig(as(user), false))) {
            return sendFailure(p, topic);
        }
    }

    static Throwable sendFailure(KafkaProducer<String, byte[]> p, String topic) throws Exception {
        try {
            p.send(new ProducerRecord<>(topic, "acl-test", bytes("written by the ACL test"))).get(30, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (KafkaException e) {
            // an idempotent producer refused its producer id fails send() itself, with the refusal as the cause
            // ("Cannot execute transactional method because we are in an error state"): report the refusal
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof AuthorizationException) {
                    return t;
                }
            }
            return e;
        }
    }

    /** Reads {@code topic} from offset 0 without a group; null when the seed record was read, else the refusal. */
    static Throwable readFailure(String user, String topic) {
        try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(consumerConfig(user, null))) {
            List<TopicPartition> partitions = List.of(new TopicPartition(topic, 0));
            c.assign(partitions);
            c.seekToBeginning(partitions);
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(500))) {
                    if (SEED.equals(r.key())) {
                        return null;
                    }
                }
            }
            throw new AssertionError(user + " neither read nor was refused " + topic + " within " + WAIT);
        } catch (KafkaException e) {
            // an idempotent producer refused its producer id fails send() itself, with the refusal as the cause
            // ("Cannot execute transactional method because we are in an error state"): report the refusal
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof AuthorizationException) {
                    return t;
                }
            }
            return e;
        }
    }

    /** docker-gate's {@code GrantsFeed}: partitionsFor, assign, seekToBeginning, read_committed, no commit. */
    static boolean readLikeTheGrantsFeed(String user, String group) {
        Map<String, Object> config = consumerConfig(user, group);
        config.put(ConsumerConfig.CLIENT_ID_CONFIG, group);
        config.put(ConsumerConfig.ISOLATION_LEVEL_CONFIG, "read_committed");
        try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(config)) {
            List<TopicPartition> partitions = c.partitionsFor(Topics.GRANTS).stream()
                    .map(p -> new TopicPartition(p.topic(), p.partition())).toList();
            c.assign(partitions);
            c.seekToBeginning(partitions);
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(500))) {
                    if (SEED.equals(r.key())) {
                        return true;
                    }
                }
            }
            return false;
        }
    }

    /**
     * Subscribes in {@code group} as the services' SmallRye channels do and returns the topics whose
     * seed record it read; commits the offsets when the service does.
     */
    static Set<String> readInGroup(String user, String group, boolean commit, String... topics) {
        Set<String> seen = new HashSet<>();
        try (KafkaConsumer<String, byte[]> c = new KafkaConsumer<>(consumerConfig(user, group))) {
            c.subscribe(List.of(topics));
            long deadline = System.nanoTime() + WAIT.toNanos();
            while (seen.size() < topics.length && System.nanoTime() < deadline) {
                for (ConsumerRecord<String, byte[]> r : c.poll(Duration.ofMillis(500))) {
                    if (SEED.equals(r.key())) {
                        seen.add(r.topic());
                    }
                }
            }
            if (commit) {
                c.commitSync();
            }
        }
        return seen;
    }

    /** What the broker answers {@code user} subscribing to {@code topic} in {@code group}; null when it read. */
    static Throwable subscribeFailure(String user, String group, String topic) {
        try {
            return readInGroup(user, group, false, topic).isEmpty()
                    ? new AssertionError(user + " neither read nor was refused " + topic + " in group " + group) : null;
        } catch (KafkaException e) {
            // an idempotent producer refused its producer id fails send() itself, with the refusal as the cause
            // ("Cannot execute transactional method because we are in an error state"): report the refusal
            for (Throwable t = e; t != null; t = t.getCause()) {
                if (t instanceof AuthorizationException) {
                    return t;
                }
            }
            return e;
        }
    }

    /** A consumer group id as the service's application.properties sets it, with its placeholders resolved. */
    static String groupId(String module, String key) throws IOException {
        String value = DeploymentFilesTest.config(module).get(key);
        assertThat(value).as(module + " sets " + key).isNotNull();
        value = value.replace("${quarkus.uuid}", UUID.randomUUID().toString());
        Matcher m = Pattern.compile("\\$\\{[A-Za-z0-9_.]+:([^}]*)}").matcher(value); // ${ENV:default} → default
        return m.replaceAll(r -> Matcher.quoteReplacement(r.group(1)));
    }

    static Throwable cause(org.apache.kafka.common.KafkaFuture<?> future) throws InterruptedException {
        try {
            future.get(20, TimeUnit.SECONDS);
            return null;
        } catch (ExecutionException e) {
            return e.getCause();
        } catch (java.util.concurrent.TimeoutException e) {
            return e;
        }
    }

    static Collection<String> others(String topic) {
        return ALL_TOPICS.stream().filter(t -> !t.equals(topic)).toList();
    }

    static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }

    interface Check {
        boolean holds() throws Exception;
    }

    static void awaitTrue(String what, Check check) {
        // a check that throws is retried (a broker still applying ACLs answers with an error)
        await(what).atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(200)).ignoreExceptions().until(check::holds);
    }
}
