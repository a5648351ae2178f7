package io.rediacc.gpu.agent.publish;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.agent.config.AgentSettings;
import io.rediacc.gpu.standin.machine.FixtureRoot;
import io.rediacc.gpu.agent.setup.SetupService;
import io.rediacc.gpu.agent.toolkit.ToolkitPolicy;
import io.rediacc.gpu.contracts.events.CloudEventHeaders;
import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.contracts.events.DropReason;
import io.rediacc.gpu.contracts.signing.KeyPairFile;
import io.rediacc.gpu.contracts.signing.RecordSignature;
import io.rediacc.gpu.contracts.signing.RecordVerifier;
import io.rediacc.gpu.contracts.signing.SigningKeys;
import io.rediacc.gpu.testsupport.EmbeddedKafka;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import jakarta.inject.Inject;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** The long-running mode against the real Kafka broker of test-support. */
@QuarkusTest
@QuarkusTestResource(value = KafkaTestResource.class, restrictToAnnotatedClass = true)
class InventoryPublishingTest {

    private static final Duration WAIT = Duration.ofSeconds(30);

    @Inject
    InventoryAgent agent;

    @Inject
    SetupService setup;

    @TempDir
    Path tmp;

    private static String machine(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    private static AgentSettings settings(FixtureRoot f) {
        return AgentSettings.forRoot(f.root(), f.searchPath(), null);
    }

    @Test
    void theInventoryIsPublishedAtStartAndAgainWhenSetupFollowsADriverChange() throws Exception {
        String machine = machine("dgx");
        FixtureRoot f = FixtureRoot.builder(tmp).hostname(machine).nvidia(2).toolkitInstalled(true).build();
        setup.run(settings(f), ToolkitPolicy.AUTO);

        try (RunningAgent running = agent.start(settings(f))) {
            ConsumerRecord<String, byte[]> first = InventoryTopic.await(machine, inv -> inv.gpus().size() == 2, WAIT);
            MachineInventory published = InventoryTopic.value(first);
            assertThat(published.machine()).isEqualTo(machine);
            assertThat(published.cdiDevices()).extracting(MachineInventory.CdiDeviceInfo::name)
                    .contains("nvidia.com/gpu=0", "nvidia.com/gpu=1", "nvidia.com/gpu=all", "rediacc.io/dri=renderD128");
            assertThat(published.gpus()).allSatisfy(g -> assertThat(g.driverVersion()).isEqualTo("550.127.05"));
            assertThat(InventoryTopic.header(first, CloudEventHeaders.TYPE)).isEqualTo("io.rediacc.gpu.inventory.v1");
            assertThat(InventoryTopic.header(first, CloudEventHeaders.SOURCE)).isEqualTo("/node-agent/" + machine);
            assertThat(InventoryTopic.header(first, CloudEventHeaders.SUBJECT)).isEqualTo(machine);
            assertThat(InventoryTopic.header(first, CloudEventHeaders.ID)).isNotBlank();
            // signed with the machine's own key, which setup's root now holds
            KeyPair key = KeyPairFile.read(f.root().resolve(KeyPairFile.MACHINE_KEY.substring(1)));
            assertThat(InventoryTopic.header(first, RecordSignature.KEY_ID)).isEqualTo(SigningKeys.keyId(key.getPublic()));
            assertThat(new RecordVerifier(Duration.ofMinutes(2)).verify(Topics.INVENTORY, first.key(),
                    h -> first.headers().lastHeader(h) == null ? null : first.headers().lastHeader(h).value(), first.value(),
                    key.getPublic(), machine, Instant.now())).isNull();
            assertThat(new RecordVerifier(Duration.ofMinutes(2)).verify(Topics.INVENTORY, first.key(),
                    h -> first.headers().lastHeader(h) == null ? null : first.headers().lastHeader(h).value(), first.value(),
                    SigningKeys.generate().getPublic(), machine, Instant.now()).reason()).isEqualTo(DropReason.FOREIGN_KEY);
            String digestBefore = published.cdiDevices().stream().filter(d -> d.name().equals("nvidia.com/gpu=all"))
                    .findFirst().orElseThrow().specDigest();

            f.replaceNvidia(f.nvidia().stream().map(c -> c.withDriver("560.35.03")).toList());
            setup.run(settings(f), ToolkitPolicy.AUTO);

            MachineInventory after = InventoryTopic.value(InventoryTopic.await(machine,
                    inv -> inv.gpus().stream().allMatch(g -> "560.35.03".equals(g.driverVersion())), WAIT));
            assertThat(after.cdiDevices()).filteredOn(d -> d.name().equals("nvidia.com/gpu=all"))
                    .singleElement().satisfies(d -> assertThat(d.specDigest()).isNotEqualTo(digestBefore));
            assertThat(after.generatedAt()).isAfter(published.generatedAt());
        }
    }

    @Test
    void anAgentThatBootsWhileKafkaIsDownPublishesOnceKafkaIsBack() throws Exception {
        String machine = machine("offline");
        FixtureRoot f = FixtureRoot.builder(tmp).hostname(machine).amd(1).build();
        setup.run(settings(f), ToolkitPolicy.AUTO);
        EmbeddedKafka broker = KafkaTestResource.broker();
        broker.stop();
        try (RunningAgent running = agent.start(settings(f))) {
            // several failed attempts (max.block.ms is 1.5 s in tests), none published
            await("two failed sends while Kafka is down").atMost(Duration.ofSeconds(60))
                    .until(() -> running.failedPublishCount() >= 2);
            assertThat(running.publishedCount()).isZero();
            assertThat(running.lastAssembled().machine()).isEqualTo(machine);

            broker.restart();

            MachineInventory published = InventoryTopic.value(InventoryTopic.await(machine, inv -> true, WAIT));
            assertThat(published.cdiDevices()).extracting(MachineInventory.CdiDeviceInfo::name)
                    .contains("rediacc.io/amd=gpu0", "rediacc.io/amd=all");
            assertThat(running.publishedCount()).isPositive();
        } finally {
            broker.restart();
        }
    }

    @Test
    void aChangeOfTheReposManifestOrOfEtcCdiIsPublishedWithoutWaitingForTheHeartbeat() throws Exception {
        String machine = machine("repos");
        FixtureRoot f = FixtureRoot.builder(tmp).hostname(machine).intel(1).build();
        setup.run(settings(f), ToolkitPolicy.AUTO);
        Files.createDirectories(f.path("/etc/rediacc/gate"));
        try (RunningAgent running = agent.start(settings(f))) {
            InventoryTopic.await(machine, inv -> inv.repos().isEmpty(), WAIT);

            f.writeReposManifest("""
                    repos:
                      - name: trainer
                        guid: 6b1f3c2a-8d4e-4f5a-9b6c-7d8e9f0a1b2c
                        listen: unix:///run/rediacc/gate/trainer.sock
                        daemon: unix:///run/rediacc/docker/trainer.sock
                    """);
            long start = System.nanoTime();
            MachineInventory withRepo = InventoryTopic.value(InventoryTopic.await(machine, inv -> !inv.repos().isEmpty(), WAIT));
            assertThat(withRepo.repos()).containsExactly(new RepoInfo("trainer", "6b1f3c2a-8d4e-4f5a-9b6c-7d8e9f0a1b2c", null));
            // the heartbeat is 60 s: only the file watch can have published this
            assertThat(Duration.ofNanos(System.nanoTime() - start)).isLessThan(Duration.ofSeconds(20));

            Files.writeString(f.path("/etc/cdi/vendor.yaml"), """
                    cdiVersion: 0.3.0
                    kind: vendor.example/fpga
                    devices:
                      - name: card0
                        containerEdits:
                          deviceNodes:
                            - path: /dev/fpga0
                    """);
            MachineInventory withSpec = InventoryTopic.value(InventoryTopic.await(machine,
                    inv -> inv.cdiDevices().stream().anyMatch(d -> d.name().equals("vendor.example/fpga=card0")), WAIT));
            assertThat(withSpec.cdiDevices()).filteredOn(d -> d.name().equals("vendor.example/fpga=card0"))
                    .singleElement().satisfies(d -> assertThat(d.specFile()).isEqualTo("/etc/cdi/vendor.yaml"));
        }
    }

    @Test
    void anUnchangedMachineIsRepublishedOnTheHeartbeatSoItsAgeStaysVisible() throws Exception {
        String machine = machine("quiet");
        FixtureRoot f = FixtureRoot.builder(tmp).hostname(machine).build();
        setup.run(settings(f), ToolkitPolicy.AUTO);
        try (RunningAgent running = agent.start(settings(f), Duration.ofSeconds(1))) {
            MachineInventory first = InventoryTopic.value(InventoryTopic.await(machine, inv -> true, WAIT));
            MachineInventory later = InventoryTopic.value(InventoryTopic.await(machine,
                    inv -> inv.generatedAt().isAfter(first.generatedAt().plusSeconds(1)), WAIT));
            assertThat(later.gpus()).isEmpty();
            assertThat(later.machine()).isEqualTo(machine);
        }
    }
}
