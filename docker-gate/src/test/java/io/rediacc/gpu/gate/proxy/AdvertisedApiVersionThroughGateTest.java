package io.rediacc.gpu.gate.proxy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rediacc.gpu.gate.service.Gate;
import io.rediacc.gpu.gate.support.Await;
import io.rediacc.gpu.gate.support.DockerCli;
import io.rediacc.gpu.gate.support.RawHttp;
import io.rediacc.gpu.gate.support.StandaloneGates;
import io.rediacc.gpu.standin.StandInDockerd;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * A daemon newer than the gate's route table (API 1.60 against the table's 1.56): the gate tells
 * clients the daemon serves 1.56, in /_ping's {@code Api-Version} header and in
 * {@code GET /version}'s {@code ApiVersion}, so a client negotiating its version from either uses
 * one the gate judges instead of one every later request is refused for (400).
 */
class AdvertisedApiVersionThroughGateTest {

    private static final String NEWER = "1.60";
    private static final String GATE_MAX = "1.56";
    private static final Pattern API_VERSION_HEADER = Pattern.compile("(?im)^Api-Version: *([^\\r\\n]*)\\r?$");

    private static StandaloneGates gates;
    private static StandInDockerd daemon;
    private static Gate gate;
    private static InetSocketAddress address;

    @BeforeAll
    static void start(@TempDir Path dir) throws Exception {
        gates = new StandaloneGates();
        daemon = StandInDockerd.startTcp();
        daemon.setApiVersion(NEWER);
        Path manifest = Files.writeString(dir.resolve("repos.yaml"), """
                machine: m-newer-daemon
                repos:
                  - name: a
                    guid: 66666666-6666-4666-8666-666666666666
                    listen: tcp://127.0.0.1:0
                    daemon: %s
                """.formatted(daemon.address()));
        gate = gates.start(manifest, dir.resolve("state"), "gate-newer");
        Await.until("the daemon's versions read", Duration.ofSeconds(20),
                () -> gate.daemons().apiVersions("66666666-6666-4666-8666-666666666666").isPresent());
        int port = ((InetSocketAddress) gate.boundAddress("a").orElseThrow()).getPort();
        address = new InetSocketAddress("127.0.0.1", port);
    }

    @AfterAll
    static void stop() {
        gate.close();
        daemon.close();
        gates.close();
    }

    private static String advertised(String response) {
        Matcher m = API_VERSION_HEADER.matcher(response);
        assertThat(m.find()).as("an Api-Version header in\n" + response).isTrue();
        return m.group(1).trim();
    }

    private static String body(String response) {
        return response.substring(response.indexOf("\r\n\r\n") + 4);
    }

    @Test
    void pingAdvertisesTheNewestVersionTheGateJudgesNotTheDaemons() {
        String get = RawHttp.request(address, "GET", "/_ping", "", null);
        String head = RawHttp.request(address, "HEAD", "/_ping", "", null);

        assertThat(RawHttp.status(get)).isEqualTo(200);
        assertThat(advertised(get)).isEqualTo(GATE_MAX);
        assertThat(body(get)).isEqualTo("OK");
        assertThat(RawHttp.status(head)).isEqualTo(200);
        assertThat(advertised(head)).isEqualTo(GATE_MAX);
    }

    @Test
    void versionAnswersTheNewestVersionTheGateJudgesWithItsLengthAdjusted() throws Exception {
        String response = RawHttp.request(address, "GET", "/version", "", null);

        assertThat(RawHttp.status(response)).isEqualTo(200);
        JsonNode version = new ObjectMapper().readTree(body(response));
        assertThat(version.path("ApiVersion").asText()).isEqualTo(GATE_MAX);
        assertThat(version.path("Components").get(0).path("Details").path("ApiVersion").asText()).isEqualTo(GATE_MAX);
        assertThat(version.path("MinAPIVersion").asText()).isEqualTo("1.24");
        assertThat(version.path("Version").asText()).isEqualTo("28.2.2");
        assertThat(response).containsIgnoringCase("Content-Length: " + body(response).getBytes(java.nio.charset.StandardCharsets.UTF_8).length);
    }

    @Test
    void aClientNegotiatingFromPingIsServedNotRefused() {
        // Docker's client uses the lower of its own newest version and the ping's Api-Version.
        String negotiated = advertised(RawHttp.request(address, "GET", "/_ping", "", null));

        String info = RawHttp.request(address, "GET", "/v" + negotiated + "/info", "", null);

        assertThat(RawHttp.status(info)).as(info).isEqualTo(200);
    }

    @Test
    void theDockerCliSeesTheCappedVersionAndIsServed() {
        DockerCli docker = new DockerCli("tcp://127.0.0.1:" + address.getPort());

        DockerCli.Result version = docker.run("version", "--format", "{{.Server.APIVersion}}");
        DockerCli.Result info = docker.run("info", "--format", "{{.ServerVersion}}");

        assertThat(version.ok()).as(version.toString()).isTrue();
        assertThat(version.stdout().trim()).isEqualTo(GATE_MAX);
        assertThat(info.ok()).as(info.toString()).isTrue();
        assertThat(info.stdout().trim()).isEqualTo("28.2.2");
    }
}
