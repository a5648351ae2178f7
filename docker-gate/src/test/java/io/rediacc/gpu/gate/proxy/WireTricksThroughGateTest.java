package io.rediacc.gpu.gate.proxy;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.gate.service.GateLifecycle;
import io.rediacc.gpu.gate.support.GateTestResource;
import io.rediacc.gpu.gate.support.RawHttp;
import io.rediacc.gpu.standin.StandInDockerd;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.SocketAddress;
import java.util.stream.Stream;

import static io.rediacc.gpu.gate.support.GateTestResource.REPO;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The policy's JSON and path tricks sent over the wire to a running gate: each is answered with
 * a Docker error and the daemon behind the gate receives nothing. (The policy's own tests pin
 * the exact rule and message of each; these pin that the data plane carries the refusal out.)
 */
@QuarkusTest
@QuarkusTestResource(KafkaTestResource.class)
@QuarkusTestResource(GateTestResource.class)
class WireTricksThroughGateTest {

    private static final String CREATE = "/v1.50/containers/create";

    @Inject
    GateLifecycle lifecycle;

    private StandInDockerd daemon;
    private SocketAddress gate;

    @BeforeEach
    void connect() {
        daemon = GateTestResource.daemon();
        daemon.clear();
        gate = lifecycle.gate().boundAddress(REPO).orElseThrow();
    }

    private static Arguments create(String name, String body) {
        return Arguments.of(name, "POST", CREATE, "", body);
    }

    private static Arguments call(String name, String method, String target, String headers, String body) {
        return Arguments.of(name, method, target, headers, body);
    }

    static Stream<Arguments> tricks() {
        String privileged = "{\"Image\":\"busybox\",\"HostConfig\":{\"Privileged\":true}}";
        return Stream.of(
                // JSON read the way Go reads it
                create("lower-case keys", "{\"hostconfig\":{\"privileged\":true}}"),
                create("upper-case keys", "{\"HOSTCONFIG\":{\"PRIVILEGED\":true}}"),
                create("long s folds to s", "{\"HostConfig\":{\"DeviceRequeſtſ\":[{\"Driver\":\"nvidia\",\"Count\":-1}]}}"),
                create("long s in Binds", "{\"HostConfig\":{\"Bindſ\":[\"/dev:/dev\"]}}"),
                create("dotless i", "{\"HostConfig\":{\"Pr\u0131vileged\":true}}"),
                create("escaped key", "{\"HostConfig\":{\"\\u0050rivileged\":true}}"),
                create("escaped HostConfig key", "{\"Host\\u0043onfig\":{\"Privileged\":true}}"),
                create("duplicate key, last wins in Go", "{\"HostConfig\":{\"Privileged\":false,\"Privileged\":true}}"),
                create("case-folded duplicate key", "{\"HostConfig\":{\"Privileged\":false,\"privileged\":true}}"),
                create("duplicate objects merged by Go", "{\"HostConfig\":{\"Privileged\":false},\"HostConfig\":{\"Devices\":[]}}"),
                create("top-level Privileged (daemons up to v26)", "{\"Image\":\"busybox\",\"Privileged\":true}"),
                create("top-level binds", "{\"Image\":\"busybox\",\"binds\":[\"/dev:/dev\"]}"),
                create("Privileged as a string", "{\"HostConfig\":{\"Privileged\":\"true\"}}"),
                create("second document", "{\"Image\":\"busybox\"}{\"HostConfig\":{\"Privileged\":true}}"),
                create("trailing comma", "{\"HostConfig\":{\"Privileged\":false,}}"),
                create("NaN", "{\"HostConfig\":{\"CpuShares\":NaN}}"),
                create("unterminated", "{\"HostConfig\":{\"Privileged\":false}"),
                create("top-level array", "[" + privileged + "]"),
                // Device spellings other than the one door
                create("--gpus all", "{\"HostConfig\":{\"DeviceRequests\":[{\"Driver\":\"\",\"Count\":-1,\"Capabilities\":[[\"gpu\"]]}]}}"),
                create("driver nvidia", "{\"HostConfig\":{\"DeviceRequests\":[{\"Driver\":\"nvidia\",\"DeviceIDs\":[\"0\"]}]}}"),
                create("driver CDI in capitals", "{\"HostConfig\":{\"DeviceRequests\":[{\"Driver\":\"CDI\",\"DeviceIDs\":[\"nvidia.com/gpu=0\"]}]}}"),
                create("cdi with a count", "{\"HostConfig\":{\"DeviceRequests\":[{\"Driver\":\"cdi\",\"Count\":1,\"DeviceIDs\":[\"nvidia.com/gpu=0\"]}]}}"),
                create("cdi with options", "{\"HostConfig\":{\"DeviceRequests\":[{\"Driver\":\"cdi\",\"DeviceIDs\":[\"nvidia.com/gpu=0\"],\"Options\":{\"a\":\"b\"}}]}}"),
                create("not a CDI name", "{\"HostConfig\":{\"DeviceRequests\":[{\"Driver\":\"cdi\",\"DeviceIDs\":[\"/dev/nvidia0\"]}]}}"),
                create("CDI name in Devices", "{\"HostConfig\":{\"Devices\":[{\"PathOnHost\":\"nvidia.com/gpu=0\",\"PathInContainer\":\"\",\"CgroupPermissions\":\"rwm\"}]}}"),
                create("runtime nvidia", "{\"HostConfig\":{\"Runtime\":\"nvidia\"}}"),
                create("device cgroup rule", "{\"HostConfig\":{\"DeviceCgroupRules\":[\"c 195:* rwm\"]}}"),
                create("bind through /proc/1/root", "{\"HostConfig\":{\"Binds\":[\"/proc/1/root/dev:/d\"]}}"),
                create("bind of the root", "{\"HostConfig\":{\"Binds\":[\"/:/host\"]}}"),
                create("mount source that cleans to /dev", "{\"HostConfig\":{\"Mounts\":[{\"Type\":\"bind\",\"Source\":\"/tmp/../dev/dri\",\"Target\":\"/dri\"}]}}"),
                create("inline local volume on a device", "{\"HostConfig\":{\"Mounts\":[{\"Type\":\"volume\",\"Target\":\"/d\",\"VolumeOptions\":{\"DriverConfig\":{\"Name\":\"local\",\"Options\":{\"type\":\"none\",\"o\":\"bind\",\"device\":\"/dev/dri\"}}}}]}}"),
                // Paths routed the way the daemon routes them
                call("percent-encoded route", "POST", "/v1.50/containers/%63reate", "", privileged),
                call("no version prefix", "POST", "/containers/create", "", privileged),
                call("odd version prefix", "POST", "/v1.24.0/containers/create", "", privileged),
                call("case variant the daemon does not route", "POST", "/v1.50/CONTAINERS/create", "", privileged),
                call("lower-case method", "post", CREATE, "", privileged),
                // API versions bounded by the stand-in daemon's GET /version (1.24 to 1.50), not only by the gate's table
                call("version above the daemon's", "GET", "/v1.51/containers/json", "", null),
                call("version below the daemon's", "GET", "/v1.23/containers/json", "", null),
                call("absolute-form target", "POST", "http://docker" + CREATE, "", privileged),
                call("query string", "POST", CREATE + "?name=x&platform=linux", "", privileged),
                call("start with a body (pre-1.24 HostConfig)", "POST", "/v1.50/containers/abc/start", "",
                        "{\"Privileged\":true}"),
                call("privileged exec", "POST", "/v1.50/containers/abc/exec", "",
                        "{\"Cmd\":[\"sh\"],\"Privileged\":true}"),
                call("volume binding /dev", "POST", "/v1.50/volumes/create", "",
                        "{\"Name\":\"v\",\"Driver\":\"local\",\"DriverOpts\":{\"type\":\"none\",\"o\":\"bind\",\"device\":\"/dev/dri\"}}"),
                call("update adding devices", "POST", "/v1.50/containers/abc/update", "",
                        "{\"Devices\":[{\"PathOnHost\":\"/dev/kfd\",\"PathInContainer\":\"/dev/kfd\",\"CgroupPermissions\":\"rwm\"}]}"),
                call("BuildKit session", "POST", "/session", "Upgrade: h2c\r\nConnection: Upgrade\r\n", null),
                call("gRPC", "POST", "/grpc", "", null),
                call("h2c upgrade anywhere", "GET", "/v1.50/_ping", "Upgrade: h2c\r\nConnection: Upgrade, HTTP2-Settings\r\n", null));
    }

    @ParameterizedTest(name = "{0}: refused, the daemon sees nothing")
    @MethodSource("tricks")
    void trickIsRefusedAndNeverReachesTheDaemon(String name, String method, String target, String headers, String body) {
        String response = RawHttp.request(gate, method, target, headers, body);

        assertThat(RawHttp.status(response)).as(response).isBetween(400, 499);
        assertThat(response).containsIgnoringCase("content-type: application/json").contains("{\"message\":\"");
        assertThat(GateTestResource.clientRequests(daemon)).isEmpty();
    }
}
