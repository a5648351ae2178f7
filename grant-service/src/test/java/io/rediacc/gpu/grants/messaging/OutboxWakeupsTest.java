package io.rediacc.gpu.grants.messaging;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.grants.config.GrantsConfig;
import io.rediacc.gpu.grants.repository.GrantWrites;
import io.rediacc.gpu.grants.repository.OutboxSignal;
import io.rediacc.gpu.grants.service.ExpiryReaper;
import io.rediacc.gpu.grants.testing.TopicReader;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.rediacc.gpu.testsupport.PostgresTestResource;
import jakarta.inject.Inject;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Rule 6: a row any replica commits to the outbox wakes the relay through PostgreSQL's NOTIFY, so an idle
 * relay need not poll. The rows here are written straight into the table, as an older replica or a hand
 * would (the outbox trigger notifies for them): this replica's own bell never rings for them, and the poll
 * (60 s in tests) is far beyond the waits.
 */
@QuarkusTest
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class OutboxWakeupsTest {

    /** Well below the test profile's poll interval: only a notification can wake the relay in time. */
    private static final Duration IN_TIME = Duration.ofSeconds(15);

    @Inject
    OutboxWakeups wakeups;
    @Inject
    OutboxRelay relay;
    @Inject
    MeterRegistry metrics;
    @Inject
    GrantsConfig config;
    @Inject
    GrantWrites writes;
    @Inject
    OutboxSignal signal;
    @Inject
    ExpiryReaper reaper;

    @BeforeEach
    void relayIsIdleAndListening() {
        assertThat(config.relay().pollInterval()).as("the poll must not be what publishes in time")
                .isGreaterThan(IN_TIME.multipliedBy(2));
        await("the relay listens and is idle").atMost(Duration.ofSeconds(30)).until(() -> wakeups.listening()
                && relay.state().pendingSeen() == 0 && relay.state().lastError() == null);
    }

    @Test
    void aRowAnotherReplicaCommitsIsPublishedByItsNotificationWellBeforeThePoll() throws Exception {
        double notified = counter("grants.outbox.notifications");
        long reaperLooks = reaper.looks();
        String key = "notified-" + UUID.randomUUID();
        Instant committed = Instant.now();
        insertOutboxRow(key);

        List<ConsumerRecord<String, byte[]>> published = TopicReader.readUntil(kafka(), Topics.GRANT_EVENTS, key,
                read -> !read.isEmpty(), IN_TIME);

        assertThat(new String(published.get(0).value(), StandardCharsets.UTF_8)).contains(key);
        assertThat(Duration.between(committed, Instant.now())).isLessThan(IN_TIME);
        assertThat(counter("grants.outbox.notifications")).isGreaterThan(notified);
        // the same bell tells the expiry reaper: a grant with an expiry committed on another replica is watched here
        await("the notification made the expiry reaper look").atMost(IN_TIME).until(() -> reaper.looks() > reaperLooks);
        awaitEmptyOutbox(key);
    }

    @Test
    void aDroppedListenConnectionIsTakenAgainAndStillWakesTheRelay() throws Exception {
        List<Integer> before = listeningBackends();
        assertThat(before).as("one connection LISTENs on grants_outbox").hasSize(1);
        double connects = counter("grants.outbox.listen.connects");
        try (Connection c = PostgresTestResource.current().connect();
             PreparedStatement kill = c.prepareStatement("select pg_terminate_backend(?)")) {
            kill.setInt(1, before.get(0));
            kill.executeQuery().close();
        }

        await("another connection LISTENs").atMost(Duration.ofSeconds(60))
                .until(() -> counter("grants.outbox.listen.connects") > connects && wakeups.listening());
        List<Integer> after = listeningBackends();
        assertThat(after).hasSize(1).doesNotContainAnyElementsOf(before);

        double notified = counter("grants.outbox.notifications");
        String key = "after-reconnect-" + UUID.randomUUID();
        insertOutboxRow(key);
        TopicReader.readUntil(kafka(), Topics.GRANT_EVENTS, key, read -> !read.isEmpty(), IN_TIME);
        assertThat(counter("grants.outbox.notifications")).isGreaterThan(notified);
        awaitEmptyOutbox(key);
    }

    /**
     * Issue 34: this replica's own change does not NOTIFY inside its transaction (that would hold PostgreSQL's
     * cluster-wide notify lock through its commit's WAL flush, so changes committed one after another); the
     * other replicas hear of it after the commit, from the listening connection. A listener in the test plays
     * another replica: every notification it gets comes from the service's listening backend, none from the
     * connection that ran the change. Without the announcement after the commit it hears the change's own
     * backend (the trigger's NOTIFY), or nothing.
     */
    @Test
    void aChangeOfThisReplicaIsAnnouncedToTheOthersAfterItsCommitNotInsideIt() throws Exception {
        String key = "announced-" + UUID.randomUUID();
        try (Connection other = PostgresTestResource.current().connect()) {
            other.createStatement().execute("LISTEN " + OutboxWakeups.CHANNEL);
            int self = other.unwrap(org.postgresql.PGConnection.class).getBackendPID();
            List<Integer> serviceListens = listeningBackends().stream().filter(pid -> pid != self).toList();
            assertThat(serviceListens).as("the service's connection LISTENs on grants_outbox").hasSize(1);

            // a change's outbox rows as the service writes them, then what it does once the change committed
            writes.inTransaction(c -> writes.appendOutbox(c, List.of(new GrantWrites.OutboxRecord(Topics.GRANT_EVENTS_TOPIC,
                    key, key, UUID.randomUUID().toString(), Instant.now(), java.util.Map.of("machine", key)))))
                    .await().atMost(Duration.ofSeconds(30));
            signal.committed();

            List<Integer> senders = new ArrayList<>();
            long deadline = System.nanoTime() + IN_TIME.toNanos();
            while (senders.isEmpty() && System.nanoTime() < deadline) {
                org.postgresql.PGNotification[] got = other.unwrap(org.postgresql.PGConnection.class).getNotifications(500);
                for (org.postgresql.PGNotification n : got == null ? new org.postgresql.PGNotification[0] : got) {
                    senders.add(n.getPID());
                }
            }
            assertThat(senders).as("the backends that notified").isNotEmpty().containsOnly(serviceListens.get(0));
        }
        TopicReader.readUntil(kafka(), Topics.GRANT_EVENTS, key, read -> !read.isEmpty(), IN_TIME);
        awaitEmptyOutbox(key);
    }

    /** An outbox row as another replica's change writes it (the relay signs it as it leaves). */
    private static void insertOutboxRow(String key) throws SQLException {
        try (Connection c = PostgresTestResource.current().connect();
             PreparedStatement s = c.prepareStatement("insert into outbox (aggregatetype, aggregateid, type, payload, headers,"
                     + " created_at) values (?, ?, ?, ?, ?, now())")) {
            s.setString(1, Topics.GRANT_EVENTS);
            s.setString(2, key);
            s.setString(3, Topics.GRANT_EVENTS_TOPIC.cloudEventType());
            s.setString(4, "{\"machine\":\"" + key + "\"}");
            s.setString(5, "{\"ce_specversion\":\"1.0\",\"ce_id\":\"" + UUID.randomUUID() + "\",\"ce_type\":\""
                    + Topics.GRANT_EVENTS_TOPIC.cloudEventType() + "\",\"ce_source\":\"/grant-service/other\"}");
            s.executeUpdate();
        }
    }

    private static List<Integer> listeningBackends() throws SQLException {
        try (Connection c = PostgresTestResource.current().connect();
             PreparedStatement s = c.prepareStatement("select pid from pg_stat_activity"
                     + " where datname = current_database() and application_name = ? order by pid")) {
            s.setString(1, OutboxWakeups.LISTENER_NAME);
            try (ResultSet rs = s.executeQuery()) {
                List<Integer> pids = new ArrayList<>();
                while (rs.next()) {
                    pids.add(rs.getInt(1));
                }
                return pids;
            }
        }
    }

    private static void awaitEmptyOutbox(String key) {
        await("the published row deleted").atMost(Duration.ofSeconds(60)).until(() -> {
            try (Connection c = PostgresTestResource.current().connect();
                 PreparedStatement s = c.prepareStatement("select count(*) from outbox where aggregateid = ?")) {
                s.setString(1, key);
                try (ResultSet rs = s.executeQuery()) {
                    rs.next();
                    return rs.getLong(1) == 0;
                }
            }
        });
    }

    private double counter(String name) {
        return metrics.get(name).counter().count();
    }

    private static String kafka() {
        return KafkaTestResource.broker().bootstrapServers();
    }
}
