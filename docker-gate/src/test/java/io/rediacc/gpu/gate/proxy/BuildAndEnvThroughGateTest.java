package io.rediacc.gpu.gate.proxy;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.gate.service.GateLifecycle;
import io.rediacc.gpu.gate.support.DockerCli;
import io.rediacc.gpu.gate.support.GateTestResource;
import io.rediacc.gpu.standin.StandInDockerd;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.nio.charset.StandardCharsets;

import static io.rediacc.gpu.gate.support.GateTestResource.REPO;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 13 items 7 and 8 through the gate as deployed (the Quarkus application, its defaults,
 * gate.max-body-bytes 64 KiB): BuildKit selected from a multipart /build body, and Env entries
 * that select devices, with the real docker CLI where it has a spelling.
 */
@QuarkusTest
@QuarkusTestResource(KafkaTestResource.class)
@QuarkusTestResource(GateTestResource.class)
class BuildAndEnvThroughGateTest {

    private static final String BOUNDARY = "gateboundary";

    @Inject
    GateLifecycle lifecycle;

    private StandInDockerd daemon;
    private DockerCli docker;
    private InetSocketAddress gate;

    @BeforeEach
    void connect() {
        daemon = GateTestResource.daemon();
        daemon.clear();
        gate = (InetSocketAddress) lifecycle.gate().boundAddress(REPO).orElseThrow();
        docker = new DockerCli("tcp://127.0.0.1:" + gate.getPort());
    }

    /** A multipart form whose version=2 part comes after {@code preambleBytes} of preamble and a decoy part. */
    private static String multipartSelectingBuildKit(int preambleBytes) {
        return "x".repeat(preambleBytes) + "\r\n"
                + "--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"t\"\r\n\r\nimg\r\n"
                + "--" + BOUNDARY + "\r\nContent-Disposition: form-data; name=\"version\"\r\n\r\n2\r\n"
                + "--" + BOUNDARY + "--\r\n";
    }

    @Test
    void multipartBuildWithVersion2AfterALargePreambleIsRefused() {
        String body = multipartSelectingBuildKit(5000);
        String raw = exchange("POST /v1.50/build?t=x HTTP/1.1\r\nHost: docker\r\nConnection: close\r\n"
                + "Content-Type: multipart/form-data; boundary=" + BOUNDARY + "\r\nContent-Length: " + body.length()
                + "\r\n\r\n", body.getBytes(StandardCharsets.ISO_8859_1), 1);

        assertThat(raw).startsWith("HTTP/1.1 403 ").contains("multipart/form-data").contains("BuildKit")
                .contains("application/x-tar");
        assertThat(daemon.saw("POST", "/build")).isFalse();
    }

    @Test
    void chunkedMultipartBuildBeyondTheInspectionLimitIsRefusedBeforeAnyBodyIsRead() {
        // 4 x 64 KiB chunks (the gate under test inspects at most 64 KiB), version=2 in the last one.
        byte[] body = multipartSelectingBuildKit(200_000).getBytes(StandardCharsets.ISO_8859_1);
        String raw = exchange("POST /v1.50/build HTTP/1.1\r\nHost: docker\r\n"
                + "Content-Type: multipart/form-data; boundary=" + BOUNDARY + "\r\nTransfer-Encoding: chunked\r\n\r\n",
                body, 4);

        assertThat(raw).startsWith("HTTP/1.1 403 ").contains("BuildKit");
        assertThat(daemon.saw("POST", "/build")).isFalse();
    }

    @Test
    void formEncodedAndUnicodeSpelledFormsAreRefused() {
        for (String contentType : new String[] {"application/x-www-form-urlencoded",
                "mult\u00c4\u00b0part/form-data; boundary=" + BOUNDARY, "text/plain"}) {
            String raw = exchange("POST /v1.50/build HTTP/1.1\r\nHost: docker\r\nConnection: close\r\nContent-Type: "
                    + contentType + "\r\nContent-Length: 9\r\n\r\n", "version=2".getBytes(StandardCharsets.ISO_8859_1), 1);
            assertThat(raw).as(contentType).startsWith("HTTP/1.1 403 ").contains("DOCKER_BUILDKIT=0");
        }
        assertThat(daemon.saw("POST", "/build")).isFalse();
    }

    @Test
    void theClassicBuilderOfTheDockerCliStillPasses() {
        // This docker CLI has no buildx, so `docker build` uses the classic builder (a tar body).
        DockerCli.Result build = docker.runWithInput("FROM busybox\nRUN true\n", "build", "-t", "x", "-");

        assertThat(daemon.requests("POST", "/build")).as(build.toString()).singleElement()
                .satisfies(r -> assertThat(r.headers().get("content-type")).isEqualTo("application/x-tar"));
    }

    @Test
    void dockerRunWithNvidiaVisibleDevicesIsRefusedWithTheCdiReplacement() {
        DockerCli.Result run = docker.run("run", "-e", "NVIDIA_VISIBLE_DEVICES=all", "busybox", "true");

        assertThat(run.ok()).as(run.toString()).isFalse();
        assertThat(run.stderr()).contains("-e NVIDIA_VISIBLE_DEVICES=all is refused")
                .contains("write --device nvidia.com/gpu=all instead");
        assertThat(daemon.saw("POST", "/containers/create")).isFalse();
    }

    @Test
    void dockerRunWithAmdOrSwarmSelectorsIsRefused() {
        for (String env : new String[] {"AMD_VISIBLE_DEVICES=0", "DOCKER_RESOURCE_GPU=0", "NVIDIA_VISIBLE_DEVICES=0"}) {
            DockerCli.Result run = docker.run("run", "-e", "PATH=/bin", "-e", env, "busybox", "true");
            assertThat(run.stderr()).as(env).contains("-e " + env + " is refused").contains("--device ");
        }
        assertThat(daemon.saw("POST", "/containers/create")).isFalse();
    }

    @Test
    void dockerRunWithVoidOrOtherEnvPasses() {
        DockerCli.Result run = docker.run("run", "-e", "NVIDIA_VISIBLE_DEVICES=void", "-e", "CUDA_VISIBLE_DEVICES=0",
                "--name", "env-ok", "busybox", "true");

        assertThat(run.ok()).as(run.toString()).isTrue();
        assertThat(daemon.saw("POST", "/containers/create")).isTrue();
    }

    @Test
    void dockerExecWithADeviceSelectorIsRefused() {
        String id = daemon.addContainer("env-exec", "{\"Image\":\"busybox\",\"HostConfig\":{}}");

        DockerCli.Result exec = docker.run("exec", "-e", "NVIDIA_VISIBLE_DEVICES=0", id, "true");

        assertThat(exec.ok()).as(exec.toString()).isFalse();
        assertThat(exec.stderr()).contains("docker exec -e NVIDIA_VISIBLE_DEVICES=0 is refused")
                .contains("--device nvidia.com/gpu=0");
        assertThat(daemon.saw("POST", "/containers/[^/]+/exec")).isFalse();
    }

    /**
     * Writes the head, then the body in {@code chunks} pieces (chunked framing when the head says
     * so), ignoring a write the gate has already closed, and reads the answer.
     */
    private String exchange(String head, byte[] body, int chunks) {
        boolean chunked = head.contains("Transfer-Encoding: chunked");
        try (Socket socket = new Socket()) {
            socket.connect(new InetSocketAddress("127.0.0.1", gate.getPort()), 3000);
            // the read stops at a complete answer; the bound only ends a gate that never answers, so it
            // can be generous (3 s read nothing back under a CI load of 35 on 2 cores)
            socket.setSoTimeout(30_000);
            OutputStream out = socket.getOutputStream();
            try {
                out.write(head.getBytes(StandardCharsets.ISO_8859_1));
                int step = (body.length + chunks - 1) / chunks;
                for (int off = 0; off < body.length; off += step) {
                    int n = Math.min(step, body.length - off);
                    if (chunked) {
                        out.write((Integer.toHexString(n) + "\r\n").getBytes(StandardCharsets.ISO_8859_1));
                    }
                    out.write(body, off, n);
                    if (chunked) {
                        out.write("\r\n".getBytes(StandardCharsets.ISO_8859_1));
                    }
                    out.flush();
                }
                if (chunked) {
                    out.write("0\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
                }
                out.flush();
            } catch (IOException closedByGate) {
                // the gate answered from the head and closed: read what it said
            }
            ByteArrayOutputStream answer = new ByteArrayOutputStream();
            InputStream in = socket.getInputStream();
            byte[] buf = new byte[8192];
            try {
                int n;
                while (!complete(answer.toString(StandardCharsets.ISO_8859_1)) && (n = in.read(buf)) >= 0) {
                    answer.write(buf, 0, n);
                }
            } catch (SocketTimeoutException | java.net.SocketException quietOrReset) {
                // what arrived counts
            }
            return answer.toString(StandardCharsets.ISO_8859_1);
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** True once a whole response with a Content-Length body has arrived (the gate may keep the connection). */
    private static boolean complete(String raw) {
        int end = raw.indexOf("\r\n\r\n");
        java.util.regex.Matcher length = java.util.regex.Pattern.compile("(?i)\r\ncontent-length: *(\\d+)").matcher(raw);
        return end >= 0 && length.find() && length.start() < end
                && raw.length() - end - 4 >= Integer.parseInt(length.group(1));
    }
}
