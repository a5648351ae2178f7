package io.rediacc.gpu.gate.proxy;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.gate.service.GateLifecycle;
import io.rediacc.gpu.gate.support.DockerCli;
import io.rediacc.gpu.gate.support.GateTestResource;
import io.rediacc.gpu.gate.support.RawHttp;
import io.rediacc.gpu.standin.StandInDockerd;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.net.SocketAddress;

import static io.rediacc.gpu.gate.support.GateTestResource.REPO;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A start or restart is re-checked against the container the reference names when the gate asks,
 * and the gate then starts that container by its full ID: a rename between the check and the
 * start cannot make the daemon start another one.
 */
@QuarkusTest
@QuarkusTestResource(KafkaTestResource.class)
@QuarkusTestResource(GateTestResource.class)
class StartByIdThroughGateTest {

    private static final String PLAIN = "{\"Image\":\"busybox\",\"HostConfig\":{}}";
    /** A container holding a device repo gpu-a is not granted: its start is refused when checked. */
    private static final String WITH_DEVICE = """
            {"Image":"busybox","HostConfig":{"DeviceRequests":[{"Driver":"cdi","Count":0,"DeviceIDs":["nvidia.com/gpu=1"]}]}}""";

    @Inject
    GateLifecycle lifecycle;

    private StandInDockerd daemon;
    private DockerCli docker;
    private SocketAddress gate;

    @BeforeEach
    void connect() {
        daemon = GateTestResource.daemon();
        daemon.clear();
        gate = lifecycle.gate().boundAddress(REPO).orElseThrow();
        docker = new DockerCli("tcp://127.0.0.1:" + ((InetSocketAddress) gate).getPort());
    }

    @Test
    void aStartByNameIsForwardedForTheFullIdOfTheContainerThatWasChecked() {
        String id = daemon.addContainer("by-name", PLAIN);

        DockerCli.Result started = docker.run("start", "by-name");

        assertThat(started.ok()).as(started.toString()).isTrue();
        assertThat(daemon.requests("POST", ".*/start")).extracting(StandInDockerd.Received::uri)
                .singleElement().asString().matches("/v[0-9.]+/containers/" + id + "/start");
    }

    @Test
    void aRestartByShortIdKeepsItsApiVersionAndQuery() {
        String id = daemon.addContainer("short-id", PLAIN);

        String answer = RawHttp.request(gate, "POST", "/v1.44/containers/" + id.substring(0, 12) + "/restart?t=5", "", null);

        assertThat(RawHttp.status(answer)).as(answer).isEqualTo(204);
        assertThat(daemon.requests("POST", ".*/restart")).extracting(StandInDockerd.Received::uri)
                .containsExactly("/v1.44/containers/" + id + "/restart?t=5");
    }

    @Test
    void aRenameBetweenTheCheckAndTheStartCannotSwapContainers() {
        String plainId = daemon.addContainer("web", PLAIN);
        String deviceId = daemon.addContainer("gpu-job", WITH_DEVICE);
        // The checked container is "web" as the gate asks; before the start reaches the daemon the
        // names are swapped, as two `docker rename` calls on another connection would.
        daemon.onNextInspect(() -> {
            daemon.rename("web", "web-old");
            daemon.rename("gpu-job", "web");
        });

        DockerCli.Result started = docker.run("start", "web");

        assertThat(started.ok()).as(started.toString()).isTrue();
        assertThat(daemon.startedIds()).contains(plainId).doesNotContain(deviceId);

        // the swap mattered: "web" now names the container with the device, and starting it is refused
        DockerCli.Result refused = docker.run("start", "web");
        assertThat(refused.ok()).isFalse();
        assertThat(refused.stderr()).contains("nvidia.com/gpu=1");
        assertThat(daemon.startedIds()).doesNotContain(deviceId);
    }

    // ------------------------------------------------------------------ docker cp, export, commit (issue 30)

    private String upload(String target, byte[] tar) {
        String head = "PUT " + target + " HTTP/1.1\r\nHost: docker\r\nConnection: close\r\nContent-Type: application/x-tar\r\n"
                + "Content-Length: " + tar.length + "\r\n\r\n";
        return RawHttp.exchange(gate, head + new String(tar, java.nio.charset.StandardCharsets.ISO_8859_1));
    }

    @Test
    void copyExportAndCommitAreForwardedForTheFullIdOfTheCheckedContainer() {
        String id = daemon.addContainer("copied", PLAIN);

        RawHttp.request(gate, "GET", "/v1.44/containers/copied/archive?path=/etc", "", null);
        RawHttp.request(gate, "HEAD", "/v1.44/containers/" + id.substring(0, 10) + "/archive?path=/etc", "", null);
        RawHttp.request(gate, "GET", "/v1.44/containers/copied/export", "", null);
        RawHttp.request(gate, "POST", "/v1.44/commit?repo=img&container=copied&tag=1", "", "{}");
        upload("/v1.44/containers/copied/archive?path=/tmp", new io.rediacc.gpu.gate.support.TarBuilder().file("a", "b").build());

        assertThat(daemon.requests("GET", ".*/archive.*")).extracting(StandInDockerd.Received::uri)
                .containsExactly("/v1.44/containers/" + id + "/archive?path=/etc");
        assertThat(daemon.requests("HEAD", ".*/archive.*")).extracting(StandInDockerd.Received::uri)
                .containsExactly("/v1.44/containers/" + id + "/archive?path=/etc");
        assertThat(daemon.requests("GET", ".*/export")).extracting(StandInDockerd.Received::uri)
                .containsExactly("/v1.44/containers/" + id + "/export");
        assertThat(daemon.requests("POST", ".*/commit.*")).extracting(StandInDockerd.Received::uri)
                .containsExactly("/v1.44/commit?container=" + id + "&repo=img&tag=1");
        assertThat(daemon.requests("PUT", ".*/archive.*")).extracting(StandInDockerd.Received::uri)
                .containsExactly("/v1.44/containers/" + id + "/archive?path=/tmp");
    }

    @Test
    void copyExportAndCommitOfAContainerHoldingAnUngrantedDeviceAreRefusedLikeItsStart() {
        daemon.addContainer("gpu-copy", WITH_DEVICE);

        DockerCli.Result out = docker.run("cp", "gpu-copy:/etc/hostname", "-");
        String export = RawHttp.request(gate, "GET", "/containers/gpu-copy/export", "", null);
        String commit = RawHttp.request(gate, "POST", "/commit?container=gpu-copy", "", "{}");
        String in = upload("/containers/gpu-copy/archive?path=/tmp", new io.rediacc.gpu.gate.support.TarBuilder().file("a", "b").build());

        assertThat(out.ok()).isFalse();
        assertThat(out.stderr()).contains("nvidia.com/gpu=1");
        assertThat(RawHttp.status(export)).as(export).isEqualTo(403);
        assertThat(RawHttp.status(commit)).as(commit).isEqualTo(403);
        assertThat(RawHttp.status(in)).as(in).isEqualTo(403);
        assertThat(daemon.requests("GET", ".*/export")).isEmpty();
        assertThat(daemon.requests("POST", ".*/commit.*")).isEmpty();
        assertThat(daemon.requests("PUT", ".*")).isEmpty();
    }

    @Test
    void anUploadWithADeviceNodeIsRefused403AndOneCompressedOrBroken400() {
        daemon.addContainer("target", PLAIN);

        String device = upload("/containers/target/archive?path=/dev",
                new io.rediacc.gpu.gate.support.TarBuilder().file("ok", "fine").charDevice("nvidia0", 195, 0).build());
        byte[] gz = {0x1f, (byte) 0x8b, 0x08, 0, 0, 0, 0, 0, 0, 0};
        String compressed = upload("/containers/target/archive?path=/dev", gz);
        String commitTwice = RawHttp.request(gate, "POST", "/commit?container=target&container=other", "", "{}");

        assertThat(RawHttp.status(device)).as(device).isEqualTo(403);
        assertThat(device).contains("character device entry").contains("nvidia0");
        assertThat(RawHttp.status(compressed)).as(compressed).isEqualTo(400);
        assertThat(compressed).contains("gzip-compressed");
        assertThat(RawHttp.status(commitTwice)).as(commitTwice).isEqualTo(400);
    }

    @Test
    void anUploadReachesTheDaemonOnlyOnceAllOfItIsJudgedWithItsLength() {
        daemon.addContainer("spooled", PLAIN);
        byte[] tar = new io.rediacc.gpu.gate.support.TarBuilder().file("a", "x".repeat(300_000)).file("b", "y".repeat(200_000)).build();

        String ok = upload("/v1.44/containers/spooled/archive?path=/tmp", tar);
        String refused = upload("/v1.44/containers/spooled/archive?path=/dev", new io.rediacc.gpu.gate.support.TarBuilder()
                .file("before", "x".repeat(200_000)).charDevice("nvidia0", 195, 0).build());

        assertThat(ok).as("the stand-in's own answer to the forwarded upload").contains("page not found");
        assertThat(RawHttp.status(refused)).as(refused).isEqualTo(403);
        java.util.List<StandInDockerd.Received> puts = daemon.requests("PUT", ".*/archive.*");
        assertThat(puts).as("the refused upload sent nothing, not even the entry before the device").hasSize(1);
        assertThat(puts.get(0).uri()).endsWith("path=/tmp");
        assertThat(puts.get(0).body()).isEqualTo(tar);
        assertThat(puts.get(0).headers().get("content-length")).isEqualTo(Integer.toString(tar.length));
    }

    @Test
    void anUploadAboveTheLimitIs413AndNothingReachesTheDaemon() {
        daemon.addContainer("too-big", PLAIN);
        // the limit of the test gate is 1 MiB (GateTestResource)
        byte[] tar = new io.rediacc.gpu.gate.support.TarBuilder().file("big", "z".repeat(1_100_000)).build();

        String answer = upload("/v1.44/containers/too-big/archive?path=/tmp", tar);

        assertThat(RawHttp.status(answer)).as(answer).isEqualTo(413);
        assertThat(answer).contains("gate.connections.max-upload-bytes");
        assertThat(daemon.requests("PUT", ".*")).isEmpty();
    }

    @Test
    void theHttp2PrefaceAndUnknownRoutesNeverReachTheDaemon() {
        String pri = RawHttp.exchange(gate, "PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n");
        String unknown = RawHttp.request(gate, "GET", "/v1.44/containers/x/secret", "", null);

        assertThat(RawHttp.status(pri)).as(pri).isEqualTo(505);
        assertThat(RawHttp.status(unknown)).as(unknown).isEqualTo(404);
        assertThat(unknown).contains("has no route GET /containers/x/secret");
        assertThat(daemon.requests("PRI", ".*")).isEmpty();
        assertThat(daemon.requests("GET", ".*/secret")).isEmpty();
    }
}
