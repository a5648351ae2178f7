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
}
