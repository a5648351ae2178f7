package io.rediacc.gpu.grants.messaging;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.CloudEventHeaders;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.contracts.signing.RecordVerifier;
import io.rediacc.gpu.grants.service.SnapshotRepublisher;
import io.rediacc.gpu.grants.signing.ServiceKey;
import io.rediacc.gpu.grants.testing.Fleet;
import io.rediacc.gpu.grants.testing.GrantApi;
import io.rediacc.gpu.grants.testing.TestMachine;
import io.rediacc.gpu.grants.testing.TopicReader;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.rediacc.gpu.testsupport.PostgresTestResource;
import jakarta.inject.Inject;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.common.header.Header;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.HashSet;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 31: each machine's newest snapshot is re-signed and re-published once it was last published more than
 * {@code grants.republish-interval} ago — same version and grants, a new signed {@code ce_time} — so compaction
 * cannot keep a replayed older record as the newest, and a gate can tell a frozen feed. A machine published
 * within the interval is left alone, and one pass re-publishes a machine once.
 */
@QuarkusTest
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class SnapshotRepublishTest {

    private final GrantApi api = new GrantApi();

    @Inject
    SnapshotRepublisher republisher;

    @Inject
    ServiceKey serviceKey;

    @Test
    void theNewestSnapshotIsReSignedOnceItIsDueAndOnlyThen() throws Exception {
        RepoInfo a = Fleet.repo("a");
        TestMachine m = TestMachine.withRepos(api, "republish", a);
        api.grant(m.ref(a), "nvidia.com/gpu=0", false, "0");
        api.grant(m.ref(a), "nvidia.com/gpu=1", false, "0");
        String kafka = KafkaTestResource.broker().bootstrapServers();
        List<ConsumerRecord<String, byte[]>> first = TopicReader.readUntil(kafka, Topics.GRANTS, m.name,
                read -> read.size() >= 2, Duration.ofSeconds(20));
        GrantSnapshot newest = EventJson.fromBytes(first.get(1).value(), GrantSnapshot.class);

        Instant cutoff = Instant.now().minus(Duration.ofMinutes(30));
        assertThat(republisher.pass(cutoff).await().atMost(Duration.ofSeconds(60)))
                .as("published just now: not due").isZero();

        try (Connection c = PostgresTestResource.current().connect();
             PreparedStatement st = c.prepareStatement(
                     "update machine_versions set published_at = now() - interval '1 hour' where machine = ?")) {
            st.setString(1, m.name);
            assertThat(st.executeUpdate()).isEqualTo(1);
        }
        assertThat(republisher.pass(cutoff).await().atMost(Duration.ofSeconds(60))).isEqualTo(1);
        assertThat(republisher.pass(cutoff).await().atMost(Duration.ofSeconds(60))).as("claimed once").isZero();

        List<ConsumerRecord<String, byte[]>> all = TopicReader.readUntil(kafka, Topics.GRANTS, m.name,
                read -> read.size() >= 3, Duration.ofSeconds(20));
        ConsumerRecord<String, byte[]> again = all.get(2);
        GrantSnapshot republished = EventJson.fromBytes(again.value(), GrantSnapshot.class);
        assertThat(republished.version()).isEqualTo(newest.version());
        assertThat(new HashSet<>(republished.grants())).isEqualTo(new HashSet<>(newest.grants()));
        assertThat(Instant.parse(header(again, CloudEventHeaders.TIME)))
                .as("re-signed later").isAfter(Instant.parse(header(first.get(1), CloudEventHeaders.TIME)));
        assertThat(new RecordVerifier(Duration.ofMinutes(2)).verify(again.topic(), again.key(), name -> {
            Header h = again.headers().lastHeader(name);
            return h == null ? null : h.value();
        }, again.value(), serviceKey.publicKey(), "grant-service", Instant.now())).as("signed by grant-service").isNull();
    }

    private static String header(ConsumerRecord<String, byte[]> r, String name) {
        return new String(r.headers().lastHeader(name).value(), StandardCharsets.UTF_8);
    }
}
