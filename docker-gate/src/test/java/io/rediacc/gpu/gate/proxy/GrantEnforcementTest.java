package io.rediacc.gpu.gate.proxy;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.GateDecision;
import io.rediacc.gpu.contracts.events.GateStatus;
import io.rediacc.gpu.contracts.events.Grant;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.gate.service.GateLifecycle;
import io.rediacc.gpu.gate.support.DockerCli;
import io.rediacc.gpu.gate.support.GateTestResource;
import io.rediacc.gpu.gate.support.GrantsTopic;
import io.rediacc.gpu.standin.StandInDockerd;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import jakarta.inject.Inject;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;

import static io.restassured.RestAssured.given;
import static io.rediacc.gpu.gate.support.GateTestResource.FORK_GUID;
import static io.rediacc.gpu.gate.support.GateTestResource.MACHINE;
import static io.rediacc.gpu.gate.support.GateTestResource.REPO;
import static io.rediacc.gpu.gate.support.GateTestResource.REPO_GUID;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;

/**
 * Grants fed through the real broker take effect from the next Docker request, revocations
 * included; the gate reports what it enforces on gpu.gate-status.v1 and every refusal on
 * gpu.gate-decisions.v1 and in its metrics.
 */
@QuarkusTest
@QuarkusTestResource(KafkaTestResource.class)
@QuarkusTestResource(GateTestResource.class)
class GrantEnforcementTest {

    @Inject
    GateLifecycle lifecycle;

    private StandInDockerd daemon;
    private DockerCli docker;

    @BeforeEach
    void connect() {
        daemon = GateTestResource.daemon();
        daemon.clear();
        InetSocketAddress gate = (InetSocketAddress) lifecycle.gate().boundAddress(REPO).orElseThrow();
        docker = new DockerCli("tcp://127.0.0.1:" + gate.getPort());
    }

    /** Publishes a snapshot and waits for the gate to report it applied, as grant-service does. */
    private static long publishAndAwaitEnforced(Grant... grants) {
        long version = GrantsTopic.nextVersion();
        GrantsTopic.publish(MACHINE, version, grants);
        ConsumerRecord<String, byte[]> status = GrantsTopic.await(Topics.GATE_STATUS, r ->
                Topics.gateStatusKey(MACHINE, "gate-test").equals(r.key())
                        && EventJson.fromBytes(r.value(), GateStatus.class).appliedVersion() >= version,
                Duration.ofSeconds(20));
        assertThat(status).as("gate status reporting version " + version).isNotNull();
        return version;
    }

    /** Issue 33: setup --force removed the device of a live grant; the gate says so and names setup, not the runtime. */
    @Test
    void aGrantWhoseDeviceSetupRemovedIsRefusedNamingSetup() throws Exception {
        // the inventory setup wrote beside the gate's directory no longer lists nvidia.com/gpu=7
        java.nio.file.Path inventory = GateTestResource.manifest().toAbsolutePath().getParent().resolveSibling("gpu")
                .resolve("inventory.json");
        java.nio.file.Files.createDirectories(inventory.getParent());
        java.nio.file.Files.write(inventory, EventJson.toBytes(new io.rediacc.gpu.contracts.events.MachineInventory(
                io.rediacc.gpu.contracts.events.MachineInventory.SCHEMA_VERSION, MACHINE,
                io.rediacc.gpu.contracts.events.MachineInventory.PLATFORM_LOCAL, "test", java.time.Instant.now(), java.util.List.of(),
                java.util.List.of(new io.rediacc.gpu.contracts.events.MachineInventory.CdiDeviceInfo("rediacc.io/dri=renderD128",
                        java.util.List.of("/dev/dri/renderD128"), "/etc/cdi/rediacc-dri.yaml", "sha256:00", java.util.List.of())),
                null, null, java.util.List.of(), java.util.List.of())));
        try {
            publishAndAwaitEnforced(GrantsTopic.grant(REPO_GUID, REPO, "nvidia.com/gpu=7"),
                    GrantsTopic.grant(REPO_GUID, REPO, "rediacc.io/dri=renderD128"));
            DockerCli.Result refused = docker.run("run", "--device", "nvidia.com/gpu=7", "busybox", "true");

            assertThat(refused.ok()).isFalse();
            assertThat(refused.stderr()).contains("device nvidia.com/gpu=7 is granted to repo " + REPO + ", but machine "
                    + MACHINE + "'s CDI specs no longer define it").contains("rdc machine setup " + MACHINE)
                    .contains("rdc repo gpu revoke " + REPO + "@" + MACHINE + " --device nvidia.com/gpu=7");
            assertThat(daemon.received()).as("no create reached the daemon")
                    .noneMatch(r -> r.path().endsWith("/containers/create"));
            DockerCli.Result defined = docker.run("run", "--device", "rediacc.io/dri=renderD128", "--name", "g-dri", "busybox", "true");
            assertThat(defined.ok()).as(defined.toString()).isTrue();
        } finally {
            java.nio.file.Files.deleteIfExists(inventory);
        }
    }

    @Test
    void grantTakesEffectOnTheNextRequestAndRevocationToo() {
        publishAndAwaitEnforced(GrantsTopic.grant(REPO_GUID, REPO, "nvidia.com/gpu=0"));
        DockerCli.Result admitted = docker.run("run", "--device", "nvidia.com/gpu=0", "--name", "g1", "busybox", "true");
        assertThat(admitted.ok()).as(admitted.toString()).isTrue();

        publishAndAwaitEnforced();
        daemon.clear();
        DockerCli.Result refused = docker.run("run", "--device", "nvidia.com/gpu=0", "busybox", "true");

        assertThat(refused.ok()).isFalse();
        assertThat(refused.stderr()).contains("is not granted to repo " + REPO);
        assertThat(daemon.saw("POST", "/containers/create")).isFalse();
    }

    @Test
    void startingAnExistingContainerReChecksItsDevicesAgainstTodaysGrants() {
        publishAndAwaitEnforced(GrantsTopic.grant(REPO_GUID, REPO, "nvidia.com/gpu=0"));
        DockerCli.Result created = docker.run("create", "--device", "nvidia.com/gpu=0", "--name", "keeper", "busybox");
        assertThat(created.ok()).as(created.toString()).isTrue();

        publishAndAwaitEnforced();
        DockerCli.Result start = docker.run("start", "keeper");

        assertThat(start.ok()).isFalse();
        assertThat(start.stderr()).contains("nvidia.com/gpu=0").contains("is not granted");
        assertThat(daemon.saw("GET", "/containers/keeper/json")).as("the gate read the stored configuration").isTrue();
        assertThat(daemon.saw("POST", "/containers/[^/]+/start")).isFalse();

        publishAndAwaitEnforced(GrantsTopic.grant(REPO_GUID, REPO, "nvidia.com/gpu=0"));
        DockerCli.Result again = docker.run("start", "keeper");
        assertThat(again.ok()).as(again.toString()).isTrue();
        assertThat(daemon.saw("POST", "/containers/[^/]+/start")).isTrue();
    }

    @Test
    void forkStartsWithoutItsParentsGrantsOnItsOwnUnixSocket() {
        publishAndAwaitEnforced(GrantsTopic.grant(REPO_GUID, REPO, "nvidia.com/gpu=0"));
        StandInDockerd forkDaemon = GateTestResource.forkDaemon();
        forkDaemon.clear();
        DockerCli forkDocker = new DockerCli("unix://" + GateTestResource.forkSocket());

        DockerCli.Result refused = forkDocker.run("run", "--device", "nvidia.com/gpu=0", "busybox", "true");
        assertThat(refused.ok()).isFalse();
        assertThat(refused.stderr()).contains("is not granted to repo " + GateTestResource.FORK);
        assertThat(forkDaemon.saw("POST", "/containers/create")).isFalse();

        publishAndAwaitEnforced(GrantsTopic.grant(REPO_GUID, REPO, "nvidia.com/gpu=0"),
                GrantsTopic.grant(FORK_GUID, GateTestResource.FORK, "nvidia.com/gpu=1"));
        DockerCli.Result own = forkDocker.run("run", "--device", "nvidia.com/gpu=1", "--name", "fork-own", "busybox",
                "true");
        assertThat(own.ok()).as(own.toString()).isTrue();
        assertThat(own.stdout()).contains("hello from fork-own");
    }

    private static final String PRIVILEGED_FIX =
            "remove --privileged (compose: privileged: true) and attach granted devices with --device <vendor>/<class>=<device>";

    @Test
    void aRefusalsErrorBodyCarriesItsFixBesideTheMessage() throws Exception {
        java.net.SocketAddress gate = lifecycle.gate().boundAddress(REPO).orElseThrow();

        String answer = io.rediacc.gpu.gate.support.RawHttp.request(gate, "POST", "/v1.50/containers/create", "",
                "{\"Image\":\"busybox\",\"HostConfig\":{\"Privileged\":true}}");

        assertThat(io.rediacc.gpu.gate.support.RawHttp.status(answer)).isEqualTo(403);
        com.fasterxml.jackson.databind.JsonNode body = new com.fasterxml.jackson.databind.ObjectMapper()
                .readTree(answer.substring(answer.indexOf("\r\n\r\n") + 4));
        assertThat(body.path("fix").asText()).isEqualTo(PRIVILEGED_FIX);
        assertThat(body.path("message").asText()).startsWith("privileged mode is refused").contains(PRIVILEGED_FIX);
    }

    @Test
    void refusalsArePublishedAsDecisionsAndCounted() {
        DockerCli.Result refused = docker.run("run", "--privileged", "busybox", "true");
        assertThat(refused.ok()).isFalse();

        ConsumerRecord<String, byte[]> record = GrantsTopic.await(Topics.GATE_DECISIONS, r -> {
            GateDecision d = EventJson.fromBytes(r.value(), GateDecision.class);
            return MACHINE.equals(r.key()) && REPO.equals(d.repoName()) && "privileged".equals(d.rule());
        }, Duration.ofSeconds(20));
        assertThat(record).as("a privileged refusal on " + Topics.GATE_DECISIONS).isNotNull();
        GateDecision decision = EventJson.fromBytes(record.value(), GateDecision.class);
        assertThat(decision.repoGuid()).isEqualTo(REPO_GUID);
        assertThat(decision.gateId()).isEqualTo("gate-test");
        assertThat(decision.method()).isEqualTo("POST");
        assertThat(decision.endpoint()).endsWith("/containers/create");
        // the fix on its own, beside the message the CLI printed (which names it too)
        assertThat(decision.fix()).isEqualTo(PRIVILEGED_FIX);
        assertThat(decision.message()).contains(PRIVILEGED_FIX);
        assertThat(refused.stderr()).contains(PRIVILEGED_FIX);
        assertThat(new String(record.headers().lastHeader("ce_type").value()))
                .isEqualTo(Topics.GATE_DECISIONS_TOPIC.cloudEventType());

        given().get("/q/metrics").then().statusCode(200)
                .body(containsString("gate_refusals_total{repo=\"" + REPO + "\",rule=\"privileged\"}"));
    }

    @Test
    void readyOnceGrantsAreLoaded() {
        given().get("/q/health/ready").then().statusCode(200)
                .body("status", equalTo("UP"))
                .body("checks.find { it.name == 'grants' }.data.machine", equalTo(MACHINE))
                .body("checks.find { it.name == 'grants' }.data.listeners", equalTo(2));
    }
}
