package io.rediacc.gpu.grants.messaging;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.CloudEventHeaders;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.GrantEvent;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.grants.testing.Database;
import io.rediacc.gpu.grants.testing.Fleet;
import io.rediacc.gpu.grants.testing.GrantApi;
import io.rediacc.gpu.grants.testing.TestMachine;
import io.rediacc.gpu.grants.testing.TopicReader;
import io.rediacc.gpu.testsupport.EmbeddedKafka;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.rediacc.gpu.testsupport.PostgresTestResource;
import io.restassured.response.Response;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.LongStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Rules 5 and 6: every change is published from the outbox, in order, with CloudEvents headers, Kafka outage or not. */
@QuarkusTest
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class OutboxRelayTest {

    private final GrantApi api = new GrantApi();

    private static String kafka() {
        return KafkaTestResource.broker().bootstrapServers();
    }

    @Test
    void everyChangePublishesTheCompleteGrantSetWithCloudEventHeaders() throws Exception {
        RepoInfo a = Fleet.repo("a");
        RepoInfo b = Fleet.repo("b");
        TestMachine m = TestMachine.withRepos(api, "publish", a, b);
        api.grant(m.ref(a), "nvidia.com/gpu=0", true, "0");
        api.grant(m.ref(b), "nvidia.com/gpu=1", false, "0");
        api.revoke(m.ref(a), "nvidia.com/gpu=0", "0");

        List<ConsumerRecord<String, byte[]>> records = TopicReader.readUntil(kafka(), Topics.GRANTS, m.name,
                read -> read.size() >= 3, Duration.ofSeconds(20));

        List<GrantSnapshot> snapshots = records.stream().map(r -> EventJson.fromBytes(r.value(), GrantSnapshot.class)).toList();
        assertThat(snapshots).extracting(GrantSnapshot::version).containsExactly(1L, 2L, 3L);
        assertThat(snapshots.get(1).grants()).extracting(g -> g.repoName() + " " + g.device())
                .containsExactly("a nvidia.com/gpu=0", "b nvidia.com/gpu=1");
        try (Connection c = PostgresTestResource.current().connect()) {
            assertThat(Set.copyOf(snapshots.get(2).grants())).isEqualTo(new Database(c).grants(m.name));
        }
        ConsumerRecord<String, byte[]> last = records.get(2);
        assertThat(header(last, CloudEventHeaders.SPEC_VERSION)).isEqualTo("1.0");
        assertThat(header(last, CloudEventHeaders.TYPE)).isEqualTo(Topics.GRANTS_TOPIC.cloudEventType());
        assertThat(header(last, CloudEventHeaders.SOURCE)).isEqualTo("/grant-service");
        assertThat(header(last, CloudEventHeaders.ID)).isEqualTo(m.name + "/v3");
        assertThat(header(last, CloudEventHeaders.SUBJECT)).isEqualTo(m.name);
        assertThat(Instant.parse(header(last, CloudEventHeaders.TIME))).isEqualTo(snapshots.get(2).updatedAt());

        List<ConsumerRecord<String, byte[]>> events = TopicReader.readUntil(kafka(), Topics.GRANT_EVENTS, m.name,
                read -> read.size() >= 3, Duration.ofSeconds(20));
        assertThat(events).extracting(r -> EventJson.fromBytes(r.value(), GrantEvent.class).type())
                .containsExactly(GrantEvent.Type.GRANTED, GrantEvent.Type.GRANTED, GrantEvent.Type.REVOKED);
        assertThat(header(events.get(0), CloudEventHeaders.TYPE)).isEqualTo(Topics.GRANT_EVENTS_TOPIC.cloudEventType());
        assertThat(header(events.get(0), CloudEventHeaders.ID))
                .isEqualTo(EventJson.fromBytes(events.get(0).value(), GrantEvent.class).id());
    }

    @Test
    void grantsAreAcceptedWhileKafkaIsDownAndPublishedInOrderWhenItReturns() throws Exception {
        RepoInfo a = Fleet.repo("a");
        RepoInfo b = Fleet.repo("b");
        RepoInfo c = Fleet.repo("c");
        TestMachine m = TestMachine.withRepos(api, "outage", a, b, c);
        EmbeddedKafka broker = KafkaTestResource.broker();
        List<Integer> versions = new ArrayList<>();
        broker.stop();
        try {
            Instant before = Instant.now();
            versions.add(accepted(api.grant(m.ref(a), "nvidia.com/gpu=0", false, "0")));
            versions.add(accepted(api.grant(m.ref(b), "nvidia.com/gpu=0", false, "0")));
            versions.add(accepted(api.grant(m.ref(c), "nvidia.com/gpu=1", true, "0")));
            versions.add(accepted(api.revoke(m.ref(a), "nvidia.com/gpu=0", "0")));
            // (not nvidia.com/gpu=all: it reaches card 1, which c reserves exclusively)
            versions.add(accepted(api.grant(m.ref(a), "rediacc.io/dri=renderD128", false, "0")));
            versions.add(accepted(api.grant(m.ref(b), "nvidia.com/gpu=0", true, "0")));
            // no call waits on Kafka: six calls that each waited for the relay's delivery timeout (20 s in tests)
            // would take two minutes; the bound is loose so that a loaded CI machine does not fail it
            assertThat(Duration.between(before, Instant.now())).isLessThan(Duration.ofSeconds(60));
            try (Connection conn = PostgresTestResource.current().connect()) {
                assertThat(new Database(conn).pendingOutboxRows(m.name)).isEqualTo(12); // 6 snapshots + 6 events
            }
        } finally {
            broker.restart();
        }
        assertThat(versions).containsExactly(1, 2, 3, 4, 5, 6);

        List<GrantSnapshot> arrived = TopicReader.readUntil(kafka(), Topics.GRANTS, m.name,
                        read -> read.stream().anyMatch(r -> EventJson.fromBytes(r.value(), GrantSnapshot.class).version() == 6),
                        Duration.ofSeconds(60)).stream()
                .map(r -> EventJson.fromBytes(r.value(), GrantSnapshot.class)).toList();

        // every change arrived, in version order (a retried pass may repeat a record; order still holds)
        List<Long> arrivedVersions = arrived.stream().map(GrantSnapshot::version).toList();
        assertThat(arrivedVersions).isSorted();
        assertThat(new HashSet<>(arrivedVersions)).isEqualTo(Set.copyOf(LongStream.rangeClosed(1, 6).boxed().toList()));
        // the final compacted state is the latest snapshot: each grant once, equal to the database
        GrantSnapshot latest = arrived.get(arrived.size() - 1);
        assertThat(latest.grants()).doesNotHaveDuplicates()
                .extracting(g -> g.repoName() + " " + g.device() + (g.exclusive() ? " exclusive" : ""))
                .containsExactlyInAnyOrder("a rediacc.io/dri=renderD128", "b nvidia.com/gpu=0 exclusive", "c nvidia.com/gpu=1 exclusive");
        try (Connection conn = PostgresTestResource.current().connect()) {
            Database db = new Database(conn);
            assertThat(Set.copyOf(latest.grants())).isEqualTo(db.grants(m.name));
            awaitEmptyOutbox(db, m.name);
        }
    }

    @Test
    void snapshotConsumerRebuiltFromTheTopicEqualsTheDatabase() throws Exception {
        RepoInfo a = Fleet.repo("a");
        RepoInfo b = Fleet.repo("b");
        TestMachine one = TestMachine.withRepos(api, "rebuild-1", a, b);
        TestMachine two = TestMachine.withRepos(api, "rebuild-2", a, b);
        api.grant(one.ref(a), "nvidia.com/gpu=0", true, "0");
        api.grant(one.ref(b), "nvidia.com/gpu=1", false, "0");
        api.grant(two.ref(a), "nvidia.com/gpu=all", false, "0");
        api.grant(one.ref(b), "nvidia.com/gpu=0", false, "0"); // refused: a holds it exclusively
        api.revoke(one.ref(b), "nvidia.com/gpu=1", "0");
        api.grant(two.ref(b), "rediacc.io/dri=renderD128", true, "0");
        api.grant(one.ref(b), "nvidia.com/gpu=1", true, "0");

        Map<String, GrantSnapshot> rebuilt = new HashMap<>();
        for (TestMachine m : List.of(one, two)) {
            TopicReader.readUntil(kafka(), Topics.GRANTS, m.name, read -> {
                for (ConsumerRecord<String, byte[]> r : read) {
                    GrantSnapshot s = EventJson.fromBytes(r.value(), GrantSnapshot.class);
                    rebuilt.merge(m.name, s, (held, fresh) -> fresh.version() > held.version() ? fresh : held);
                }
                return rebuilt.containsKey(m.name) && rebuilt.get(m.name).version() == (m == one ? 4 : 2);
            }, Duration.ofSeconds(20));
        }

        try (Connection conn = PostgresTestResource.current().connect()) {
            Database db = new Database(conn);
            for (TestMachine m : List.of(one, two)) {
                assertThat(rebuilt.get(m.name).version()).isEqualTo(db.version(m.name));
                assertThat(Set.copyOf(rebuilt.get(m.name).grants())).isEqualTo(db.grants(m.name));
            }
        }
    }

    private static int accepted(Response response) {
        assertThat(response.statusCode()).as(response.asString()).isIn(200, 202);
        return response.path("version");
    }

    private static void awaitEmptyOutbox(Database db, String machine) throws Exception {
        await("outbox rows of " + machine + " deleted after publication").atMost(Duration.ofSeconds(60))
                .pollInterval(Duration.ofMillis(50)).until(() -> db.pendingOutboxRows(machine) == 0);
    }

    private static String header(ConsumerRecord<String, byte[]> record, String name) {
        var header = record.headers().lastHeader(name);
        return header == null ? null : new String(header.value(), StandardCharsets.UTF_8);
    }
}
