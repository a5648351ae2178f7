package io.rediacc.gpu.gate.grants;

import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.GateStatus;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import io.rediacc.gpu.contracts.json.GrantSnapshotDecoder;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.gate.service.Gate;
import io.rediacc.gpu.gate.support.Await;
import io.rediacc.gpu.gate.support.DockerCli;
import io.rediacc.gpu.gate.support.GrantsTopic;
import io.rediacc.gpu.gate.support.StandaloneGates;
import io.rediacc.gpu.testsupport.EmbeddedKafka;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.rediacc.gpu.testsupport.RealDockerd;
import io.rediacc.gpu.dockerd.BaseImage;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A gate that starts reads the grants topic to its end before it admits a device request, and
 * keeps the last applied snapshot on disk so that a Kafka outage at start does not lock repos out.
 * In front of a real dockerd with CDI ({@link RealDockerd}): what is admitted runs.
 */
class GateRestartTest {

    @RegisterExtension
    static final RealDockerd realDockerd = RealDockerd.withNvidiaCards(2);

    private static final String REPO_GUID = "33333333-3333-4333-8333-333333333333";

    private static StandaloneGates gates;
    private static EmbeddedKafka kafka;

    @TempDir
    Path dir;

    @BeforeAll
    static void start() {
        kafka = KafkaTestResource.broker();
        kafka.restart();
        gates = new StandaloneGates();
    }

    @AfterEach
    void reconnectKafka() {
        kafka.restart();
    }

    @AfterAll
    static void stop() {
        gates.close();
    }

    private Path manifest(String machine) throws Exception {
        Path file = dir.resolve("repos.yaml");
        Files.writeString(file, """
                machine: %s
                repos:
                  - name: trainer
                    guid: %s
                    listen: tcp://127.0.0.1:0
                    daemon: %s
                """.formatted(machine, REPO_GUID, realDockerd.daemon().host()));
        return file;
    }

    private static DockerCli docker(Gate gate) {
        return new DockerCli("tcp://127.0.0.1:" + ((InetSocketAddress) gate.boundAddress("trainer").orElseThrow()).getPort());
    }

    @Test
    void restartedGateRefusesDeviceRequestsUntilCaughtUpThenAdmits() throws Exception {
        String machine = "m-restart";
        GrantsTopic.publish(machine, 7, GrantsTopic.grant(REPO_GUID, "trainer", "nvidia.com/gpu=0"));
        kafka.stop();

        try (Gate gate = gates.start(manifest(machine), dir.resolve("fresh-state"), "gate-r", realDockerd.cdiDir())) {
            DockerCli docker = docker(gate);

            DockerCli.Result early = docker.run("run", "--device", "nvidia.com/gpu=0", BaseImage.TAG, "true");
            assertThat(early.ok()).isFalse();
            assertThat(early.stderr()).contains("grants not loaded yet");
            DockerCli.Result plain = docker.run("run", "--name", "no-device", BaseImage.TAG, "true");
            assertThat(plain.ok()).as("requests without devices pass meanwhile: " + plain).isTrue();

            kafka.restart();
            Await.until("grants caught up", Duration.ofSeconds(30), () -> gate.grants().state().caughtUp());

            DockerCli.Result admitted = docker.run("run", "--device", "nvidia.com/gpu=0", "--name", "after-sync",
                    BaseImage.TAG, "true");
            assertThat(admitted.ok()).as(admitted.toString()).isTrue();
            assertThat(gate.grants().state().version()).isEqualTo(7);

            ConsumerRecord<String, byte[]> status = GrantsTopic.await(Topics.GATE_STATUS, r ->
                    Topics.gateStatusKey(machine, "gate-r").equals(r.key())
                            && EventJson.fromBytes(r.value(), GateStatus.class).state().equals(GateStatus.SYNCED),
                    Duration.ofSeconds(20));
            assertThat(status).as("a synced gate-status record").isNotNull();
            GateStatus published = EventJson.fromBytes(status.value(), GateStatus.class);
            assertThat(published.appliedVersion()).isEqualTo(7);
            assertThat(published.epoch()).as("a status carries its signed position").isPositive();
            assertThat(published.seq()).isPositive();
            assertThat(published.grantsSignedAt()).as("the held snapshot's signed time").isNotNull();
            assertThat(published.grantsFrozen()).isFalse();
            assertThat(published.grants()).extracting(g -> g.device()).containsExactly("nvidia.com/gpu=0");
            assertThat(published.repos()).extracting(r -> r.guid()).containsExactly(REPO_GUID);
            assertThat(new String(status.headers().lastHeader("ce_type").value()))
                    .isEqualTo(Topics.GATE_STATUS_TOPIC.cloudEventType());
        }
    }

    @Test
    void kafkaOutageAtStartEnforcesTheSnapshotKeptOnDisk() throws Exception {
        String machine = "m-disk";
        Path state = dir.resolve("state");
        Path manifest = manifest(machine);
        try (Gate first = gates.start(manifest, state, "gate-d", realDockerd.cdiDir())) {
            GrantsTopic.publish(machine, 3, GrantsTopic.grant(REPO_GUID, "trainer", "nvidia.com/gpu=0"));
            Await.until("version 3 applied", Duration.ofSeconds(30), () -> first.grants().state().version() == 3);
        }
        assertThat(state.resolve("grants-" + machine + ".json")).exists();
        kafka.stop();

        try (Gate second = gates.start(manifest, state, "gate-d", realDockerd.cdiDir())) {
            DockerCli docker = docker(second);

            // the disk snapshot is enforced once Kafka has not answered within the API timeout (2 s here)
            Await.until("the disk snapshot in force", Duration.ofSeconds(30), () -> second.grants().loaded());
            assertThat(second.grants().state().caughtUp()).isFalse();
            DockerCli.Result granted = docker.run("run", "--device", "nvidia.com/gpu=0", "--name", "from-disk",
                    BaseImage.TAG, "true");
            assertThat(granted.ok()).as(granted.toString()).isTrue();
            DockerCli.Result other = docker.run("run", "--device", "nvidia.com/gpu=1", BaseImage.TAG, "true");
            assertThat(other.ok()).isFalse();
            assertThat(other.stderr()).contains("is not granted to repo trainer");
        }
    }

    @Test
    void aGateRestartedWithAStaleSnapshotOnDiskNeverAdmitsADeviceRevokedWhileItWasDown() throws Exception {
        String machine = "m-stale";
        Path state = dir.resolve("state");
        Path manifest = manifest(machine);
        try (Gate first = gates.start(manifest, state, "gate-s", realDockerd.cdiDir())) {
            GrantsTopic.publish(machine, 1, GrantsTopic.grant(REPO_GUID, "trainer", "nvidia.com/gpu=0"),
                    GrantsTopic.grant(REPO_GUID, "trainer", "nvidia.com/gpu=1"));
            Await.until("version 1 applied", Duration.ofSeconds(30), () -> first.grants().state().version() == 1);
        }
        // revoked while the gate is down; Kafka stays up
        GrantsTopic.publish(machine, 2, GrantsTopic.grant(REPO_GUID, "trainer", "nvidia.com/gpu=0"));

        try (Gate second = gates.start(manifest, state, "gate-s", realDockerd.cdiDir())) {
            DockerCli docker = docker(second);
            GrantStore.State atStart = second.grants().state();
            assertThat(atStart.fromDisk() && second.grants().loaded())
                    .as("the disk snapshot (version %d) is not enforced while Kafka answers", atStart.version()).isFalse();
            // right after the start, before the feed has read the topic: the disk still says gpu=1 is granted
            DockerCli.Result early = docker.run("run", "--device", "nvidia.com/gpu=1", BaseImage.TAG, "true");
            assertThat(early.ok()).as("the revoked device must never be admitted: " + early).isFalse();
            assertThat(early.stderr()).containsAnyOf("grants not loaded yet", "is not granted to repo trainer");

            Await.until("grants caught up", Duration.ofSeconds(30), () -> second.grants().state().caughtUp());
            assertThat(second.grants().state().version()).isEqualTo(2);
            DockerCli.Result revoked = docker.run("run", "--device", "nvidia.com/gpu=1", BaseImage.TAG, "true");
            assertThat(revoked.stderr()).contains("is not granted to repo trainer");
            DockerCli.Result granted = docker.run("run", "--device", "nvidia.com/gpu=0", "--name", "kept", BaseImage.TAG, "true");
            assertThat(granted.ok()).as(granted.toString()).isTrue();
        }
    }

    @Test
    void aForgedSnapshotOnDiskWithAHigherVersionIsIgnoredAndReplacedByTheTopics() throws Exception {
        String machine = "m-forged";
        Path state = dir.resolve("state");
        Path manifest = manifest(machine);
        try (Gate first = gates.start(manifest, state, "gate-t", realDockerd.cdiDir())) {
            GrantsTopic.publish(machine, 3, GrantsTopic.grant(REPO_GUID, "trainer", "nvidia.com/gpu=0"));
            Await.until("version 3 applied", Duration.ofSeconds(30), () -> first.grants().state().version() == 3);
        }
        GrantSnapshotFile file = new GrantSnapshotFile(state, machine);
        io.rediacc.gpu.contracts.signing.SignedRecord kept = file.read().orElseThrow();
        GrantSnapshot published = GrantSnapshotDecoder.read(kept.value());
        // what a repo that could write the state directory would leave there: every device, a version nothing
        // outranks, beside grant-service's signature (of other bytes)
        GrantSnapshot forged = new GrantSnapshot(machine, 999_999_999_999L, published.updatedAt(), List.of(
                GrantsTopic.grant(REPO_GUID, "trainer", "nvidia.com/gpu=0"),
                GrantsTopic.grant(REPO_GUID, "trainer", "nvidia.com/gpu=1")));
        file.write(new io.rediacc.gpu.contracts.signing.SignedRecord(kept.topic(), kept.key(), kept.ceTime(), kept.keyId(),
                kept.signature(), EventJson.toBytes(forged)), forged.version());

        try (Gate second = gates.start(manifest, state, "gate-t", realDockerd.cdiDir())) {
            Await.until("grants caught up", Duration.ofSeconds(30), () -> second.grants().state().caughtUp());
            assertThat(second.grants().state().version()).isEqualTo(3);
            assertThat(second.grants().state().fromDisk()).isFalse();
            assertThat(GrantSnapshotDecoder.read(file.read().orElseThrow().value()).version())
                    .as("the forged file is overwritten with the topic's snapshot").isEqualTo(3);
            DockerCli docker = docker(second);
            DockerCli.Result forgedDevice = docker.run("run", "--device", "nvidia.com/gpu=1", BaseImage.TAG, "true");
            assertThat(forgedDevice.stderr()).contains("is not granted to repo trainer");
            DockerCli.Result granted = docker.run("run", "--device", "nvidia.com/gpu=0", "--name", "real", BaseImage.TAG, "true");
            assertThat(granted.ok()).as(granted.toString()).isTrue();

            // a real snapshot published later applies (the forged version no longer outranks it)
            GrantsTopic.publish(machine, 4);
            Await.until("version 4 applied", Duration.ofSeconds(30), () -> second.grants().state().version() == 4);
        }
    }

    /**
     * Issue 31: a byte-for-byte replay of grant-service's old signed record (version 35: gpu=1 granted) after
     * the newer one (36: gpu=1 revoked), left by compaction as the machine's only record, does not take a
     * restarted gate back: its verified copy of 36 outranks the topic's 35, the replay is counted, the file kept.
     */
    @Test
    void aReplayedOldSnapshotThatCompactionLeftAsTheNewestNeverBringsARevokedDeviceBack() throws Exception {
        String machine = "m-replay-" + Long.toString(System.nanoTime(), 36);
        Path state = dir.resolve("state");
        Path manifest = manifest(machine);
        long v35 = GrantsTopic.nextVersion();
        GrantsTopic.publish(machine, v35, GrantsTopic.grant(REPO_GUID, "trainer", "nvidia.com/gpu=0"),
                GrantsTopic.grant(REPO_GUID, "trainer", "nvidia.com/gpu=1"));
        ConsumerRecord<String, byte[]> old = GrantsTopic.await(Topics.GRANTS, r -> machine.equals(r.key()),
                Duration.ofSeconds(20));
        long v36 = GrantsTopic.nextVersion();
        try (Gate first = gates.start(manifest, state, "gate-p", realDockerd.cdiDir())) {
            Await.until("version 35 applied", Duration.ofSeconds(30), () -> first.grants().state().version() == v35);
            GrantsTopic.publish(machine, v36, GrantsTopic.grant(REPO_GUID, "trainer", "nvidia.com/gpu=0"));
            Await.until("version 36 applied", Duration.ofSeconds(30), () -> first.grants().state().version() == v36);
        }

        GrantsTopic.replay(old);
        ConsumerRecord<String, byte[]> left = GrantsTopic.compactUntilOneRecordOf(machine, old.partition(),
                Duration.ofSeconds(90));
        assertThat(left.value()).as("the replay is all the topic holds of the machine").isEqualTo(old.value());

        io.micrometer.core.instrument.simple.SimpleMeterRegistry metrics = new io.micrometer.core.instrument.simple.SimpleMeterRegistry();
        try (Gate second = gates.start(manifest, state, "gate-p", metrics, realDockerd.cdiDir())) {
            Await.until("grants caught up", Duration.ofSeconds(30), () -> second.grants().state().caughtUp());
            assertThat(second.grants().state().version()).isEqualTo(v36);
            DockerCli docker = docker(second);
            DockerCli.Result revoked = docker.run("run", "--device", "nvidia.com/gpu=1", BaseImage.TAG, "true");
            assertThat(revoked.ok()).as("the revoked device stays refused: " + revoked).isFalse();
            assertThat(revoked.stderr()).contains("is not granted to repo trainer");
            DockerCli.Result granted = docker.run("run", "--device", "nvidia.com/gpu=0", "--name", "still-granted",
                    BaseImage.TAG, "true");
            assertThat(granted.ok()).as(granted.toString()).isTrue();
            assertThat(metrics.find("gate.grants.dropped").tag("reason", "replay").counter().count()).isEqualTo(1);
        }
        assertThat(GrantSnapshotDecoder.read(new GrantSnapshotFile(state, machine).read().orElseThrow().value()).version())
                .as("the copy on disk is never overwritten by the replay").isEqualTo(v36);
    }
}
