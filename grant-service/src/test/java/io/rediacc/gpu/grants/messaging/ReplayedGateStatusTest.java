package io.rediacc.gpu.grants.messaging;

import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.CloudEventHeaders;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.GateStatus;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.contracts.signing.RecordSigner;
import io.rediacc.gpu.grants.service.GatePositions;
import io.rediacc.gpu.grants.testing.Fleet;
import io.rediacc.gpu.grants.testing.GrantApi;
import io.rediacc.gpu.grants.testing.TestMachine;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.rediacc.gpu.testsupport.PostgresTestResource;
import io.vertx.mutiny.sqlclient.Pool;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 31: a gate status's order and liveness come from what its gate signed — its position (epoch, seq) and
 * {@code ce_time} — never from the Kafka record timestamp, which whoever produces the record sets. A replayed
 * old status, byte for byte and stamped "now" by the replaying producer, neither rolls the gate back to
 * "loading v0" nor keeps a dead gate live, and the position survives a restart (kept in PostgreSQL).
 */
@QuarkusTest
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class ReplayedGateStatusTest {

    private final GrantApi api = new GrantApi();

    @Inject
    MeterRegistry metrics;

    @Inject
    Pool pool;

    /** A status record as the gate signs it: its headers, kept so the test can replay it byte for byte. */
    private record Signed(String key, byte[] value, Map<String, byte[]> headers) {
    }

    private static Signed sign(GateStatus status, Instant ceTime) {
        KeyPair key = Fleet.registeredKey(status.machine());
        String recordKey = Topics.gateStatusKey(status.machine(), status.gateId());
        byte[] value = EventJson.toBytes(status);
        Map<String, byte[]> headers = new LinkedHashMap<>(CloudEventHeaders.of(Topics.GATE_STATUS_TOPIC, "/test", recordKey,
                UUID.randomUUID().toString(), ceTime));
        new RecordSigner(key.getPrivate(), key.getPublic()).sign(Topics.GATE_STATUS, recordKey, headers, value);
        return new Signed(recordKey, value, headers);
    }

    /** Produces the record with a Kafka timestamp of now, whatever it signed. */
    private static void produce(Signed record) {
        TestMachine.fleet().sendWithHeaders(Topics.GATE_STATUS, record.key(), record.value(), System.currentTimeMillis(),
                record.headers());
    }

    private double replays() {
        var c = metrics.find("grants.input.dropped").tag("topic", Topics.GATE_STATUS).tag("reason", "replay").counter();
        return c == null ? 0 : c.count();
    }

    private static GateStatus status(String machine, String gateId, long epoch, long seq, String state, long version,
                                     int heartbeat) {
        return new GateStatus(machine, gateId, version, state, List.of(), List.of(), heartbeat,
                GateStatus.SYNCED.equals(state) ? Instant.now() : null).at(epoch, seq, null, false);
    }

    @Test
    void aReplayedOldStatusDoesNotRollAGateBackToLoadingAndIsRefusedAfterARestartToo() {
        RepoInfo train = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(api, "replayed-status", train);
        long epoch = System.currentTimeMillis();
        Signed loading = sign(status(m.name, "g1", epoch, 1, GateStatus.LOADING, 0, 10), Instant.now().minusSeconds(5));
        produce(loading);
        produce(sign(status(m.name, "g1", epoch, 2, GateStatus.SYNCED, 3, 10), Instant.now()));
        await().atMost(Duration.ofSeconds(60)).until(() ->
                api.machineGrants(m.name).<List<Integer>>path("gates.appliedVersion").equals(List.of(3)));
        double before = replays();

        produce(loading); // byte for byte, stamped now by the replaying producer
        await().atMost(Duration.ofSeconds(60)).until(() -> replays() > before);

        assertThat(api.machineGrants(m.name).<List<String>>path("gates.state")).containsExactly(GateStatus.SYNCED);
        assertThat(api.machineGrants(m.name).<List<Integer>>path("gates.appliedVersion")).containsExactly(3);
        assertThat(api.machineGrants(m.name).<List<Boolean>>path("gates.live")).containsExactly(true);

        // a replica starting now reads the positions kept in PostgreSQL: the replay is still below
        GatePositions restarted = new GatePositions(pool);
        restarted.loaded().await().atMost(Duration.ofSeconds(30));
        GateStatus replayed = EventJson.fromBytes(loading.value(), GateStatus.class);
        assertThat(restarted.judge(replayed, Instant.now())).isEqualTo(GatePositions.Verdict.REPLAY);
    }

    @Test
    void aStatusSignedLongAgoDoesNotMakeADeadGateLiveWhateverItsKafkaTimestamp() {
        RepoInfo train = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(api, "dead-gate", train);
        // heartbeat 10 s: signed 40 s ago the gate is gone, though the record's Kafka timestamp says now
        Signed last = sign(status(m.name, "gone", System.currentTimeMillis(), 7, GateStatus.SYNCED, 0, 10),
                Instant.now().minusSeconds(40));
        produce(last);
        await().atMost(Duration.ofSeconds(60)).until(() ->
                api.machineGrants(m.name).<List<String>>path("gates.gateId").equals(List.of("gone")));
        assertThat(api.machineGrants(m.name).<List<Boolean>>path("gates.live")).containsExactly(false);

        produce(last); // replayed again and again: still as old as it was signed
        produce(last);
        io.restassured.response.Response granted = api.grant(m.ref(train), "nvidia.com/gpu=0", false, "2s");
        assertThat(granted.<String>path("enforcement")).contains("has no live gate");
        assertThat(api.machineGrants(m.name).<List<Boolean>>path("gates.live")).containsExactly(false);
    }

}
