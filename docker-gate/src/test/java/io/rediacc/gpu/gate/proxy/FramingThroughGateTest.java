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
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.net.SocketAddress;
import java.util.stream.Stream;

import static io.rediacc.gpu.gate.support.GateTestResource.REPO;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hand-made requests whose framing the gate and the daemon could read differently: each is
 * refused and nothing reaches the daemon. Netty's decoder does the reading; these tests pin down
 * that it refuses instead of normalising.
 */
@QuarkusTest
@QuarkusTestResource(KafkaTestResource.class)
@QuarkusTestResource(GateTestResource.class)
class FramingThroughGateTest {

    private static final String CREATE = "POST /v1.50/containers/create HTTP/1.1\r\nHost: docker\r\n"
            + "Content-Type: application/json\r\n";
    private static final String BODY = "{\"Image\":\"busybox\"}";

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

    static Stream<Arguments> ambiguousFraming() {
        String chunked = Integer.toHexString(BODY.length()) + "\r\n" + BODY + "\r\n0\r\n\r\n";
        return Stream.of(
                Arguments.of("Content-Length and chunked",
                        CREATE + "Content-Length: " + BODY.length() + "\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked),
                Arguments.of("chunked and Content-Length",
                        CREATE + "Transfer-Encoding: chunked\r\nContent-Length: 3\r\n\r\n" + chunked),
                Arguments.of("chunked behind another coding",
                        CREATE + "Transfer-Encoding: gzip, chunked\r\n\r\n" + chunked),
                Arguments.of("identity coding", CREATE + "Transfer-Encoding: identity\r\n\r\n" + BODY),
                Arguments.of("two Transfer-Encoding headers",
                        CREATE + "Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n" + chunked),
                Arguments.of("Content-Length not a number", CREATE + "Content-Length: 1x\r\n\r\n" + BODY),
                Arguments.of("negative Content-Length", CREATE + "Content-Length: -1\r\n\r\n" + BODY),
                Arguments.of("two Content-Length values", CREATE + "Content-Length: " + BODY.length() + ", 3\r\n\r\n" + BODY),
                Arguments.of("repeated Content-Length", CREATE + "Content-Length: " + BODY.length() + "\r\nContent-Length: "
                        + BODY.length() + "\r\n\r\n" + BODY),
                Arguments.of("Transfer-Encoding on HTTP/1.0",
                        CREATE.replace("HTTP/1.1", "HTTP/1.0") + "Transfer-Encoding: chunked\r\n\r\n" + chunked),
                Arguments.of("bad chunk size", CREATE + "Transfer-Encoding: chunked\r\n\r\nzz\r\n" + BODY + "\r\n0\r\n\r\n"),
                Arguments.of("pass-through endpoint with Content-Length and chunked",
                        "POST /v1.50/images/load HTTP/1.1\r\nHost: docker\r\nContent-Length: 5\r\n"
                                + "Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"));
    }

    @ParameterizedTest(name = "{0}: 400 and the daemon sees nothing")
    @MethodSource("ambiguousFraming")
    void ambiguousFramingIsRefusedAndNeverReachesTheDaemon(String what, String request) {
        String response = RawHttp.exchange(gate, request);

        assertThat(RawHttp.status(response)).as(response).isEqualTo(400);
        assertThat(response).containsIgnoringCase("Content-Type: application/json").contains("{\"message\":\"");
        // nothing but the gate's own periodic daemon check, which may fall in this window on a loaded machine
        assertThat(GateTestResource.clientRequests(daemon)).allSatisfy(r -> assertThat(r.method() + " " + r.uri()).isEqualTo("GET /info"));
    }

    @Test
    void bodyDeclaredLargerThanTheLimitIsRefusedNotSkipped() {
        String response = RawHttp.exchange(gate, CREATE + "Connection: close\r\nContent-Length: 70000\r\n\r\n" + "x".repeat(70000));

        assertThat(RawHttp.status(response)).as(response).isEqualTo(413);
        assertThat(GateTestResource.clientRequests(daemon)).isEmpty();
    }

    @Test
    void chunkedBodyGrowingPastTheLimitIsRefused() {
        StringBuilder chunks = new StringBuilder();
        for (int i = 0; i < 10; i++) {
            chunks.append("2000\r\n").append(" ".repeat(0x2000)).append("\r\n");
        }
        String response = RawHttp.exchange(gate, CREATE + "Connection: close\r\nTransfer-Encoding: chunked\r\n\r\n" + chunks + "0\r\n\r\n");

        assertThat(RawHttp.status(response)).as(response).isEqualTo(413);
        assertThat(GateTestResource.clientRequests(daemon)).isEmpty();
    }

    @Test
    void inspectedBodyThatEndsEarlyIsRefused() {
        String response = RawHttp.sendThenHalfClose(gate, CREATE + "Content-Length: 100\r\n\r\n{\"Image\":");

        assertThat(RawHttp.status(response)).as(response).isEqualTo(400);
        assertThat(GateTestResource.clientRequests(daemon)).isEmpty();
    }

    @Test
    void largeUploadsOnPassThroughEndpointsStreamWithoutTheInspectionLimit() {
        int size = 1024 * 1024;
        String response = RawHttp.exchange(gate, "POST /v1.50/images/load HTTP/1.1\r\nHost: docker\r\n"
                + "Connection: close\r\nContent-Type: application/x-tar\r\nContent-Length: " + size + "\r\n\r\n" + "t".repeat(size));

        assertThat(RawHttp.status(response)).as(response).isEqualTo(200);
        assertThat(daemon.requests("POST", "/images/load")).singleElement()
                .satisfies(r -> assertThat(r.body()).hasSize(size));
    }

    @Test
    void oneConnectionCarriesPipelinedRequestsInOrderAndSurvivesARefusal() {
        String refused = CREATE + "Content-Length: 45\r\n\r\n{\"Image\":\"x\",\"HostConfig\":{\"Privileged\":true}}";
        String response = RawHttp.exchange(gate, "GET /_ping HTTP/1.1\r\nHost: docker\r\n\r\n"
                + refused.replace("Content-Length: 45", "Content-Length: "
                + "{\"Image\":\"x\",\"HostConfig\":{\"Privileged\":true}}".length())
                + "GET /v1.50/_ping HTTP/1.1\r\nHost: docker\r\nConnection: close\r\n\r\n");

        assertThat(RawHttp.statuses(response)).containsExactly(200, 403, 200);
        // the un-versioned ping goes on with the version the daemon serves it as (its GET /version ApiVersion)
        assertThat(GateTestResource.clientRequests(daemon)).extracting(StandInDockerd.Received::path)
                .containsExactly("/v1.50/_ping", "/v1.50/_ping");
    }
}
