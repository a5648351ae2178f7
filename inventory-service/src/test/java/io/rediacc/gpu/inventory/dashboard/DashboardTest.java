package io.rediacc.gpu.inventory.dashboard;

import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.GateDecision;
import io.rediacc.gpu.contracts.events.GrantEvent;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.inventory.support.FleetApi;
import io.rediacc.gpu.inventory.support.FleetResources;
import io.rediacc.gpu.inventory.support.FleetTopics;
import io.rediacc.gpu.inventory.support.Inventories;
import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.net.URI;
import java.net.URL;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

import static io.rediacc.gpu.inventory.support.FleetApi.VIEWER_TOKEN;
import static io.rediacc.gpu.inventory.support.FleetApi.awaitMachine;
import static io.rediacc.gpu.inventory.support.Inventories.GPU_A_GUID;
import static io.rediacc.gpu.inventory.support.Inventories.GPU_B_GUID;
import static io.rediacc.gpu.inventory.support.Inventories.gate;
import static io.rediacc.gpu.inventory.support.Inventories.grant;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.allOf;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;

/** The dashboard's pages, its data under the API's rules, what it keeps from the audit topics and its live stream. */
@QuarkusTest
@FleetResources
class DashboardTest {

    @TestHTTPResource("/")
    URL base;

    @Test
    void pagesAreShellsWithoutFleetDataAndTheDataNeedsTheViewerToken() {
        String machine = Inventories.uniqueMachine("shell");
        FleetTopics.inventory(Inventories.nvidiaHost(machine, Inventories.now(), 1, "NVIDIA model of " + machine));
        awaitMachine(machine);

        given().get("/dashboard").then().statusCode(200).contentType(containsString("text/html"))
                .body(allOf(containsString("data-fragment=\"/api/v1/dashboard/fleet\""), not(containsString(machine))));
        given().get("/dashboard/login").then().statusCode(200).body(containsString("Viewer token"))
                .header("Content-Security-Policy", allOf(containsString("script-src 'self'"), containsString("frame-ancestors 'none'")));
        given().get("/dashboard/machines/" + machine).then().statusCode(200)
                .body(allOf(containsString("/api/v1/dashboard/machines/" + machine), not(containsString("NVIDIA"))));
        given().get("/dashboard/machines/_bad").then().statusCode(404);
        given().get("/dashboard/repos/-bad").then().statusCode(404);
        given().get("/dashboard-assets/dashboard.js").then().statusCode(200).body(containsString("sessionStorage"));

        for (String path : List.of("/api/v1/dashboard/fleet", "/api/v1/dashboard/machines/" + machine,
                "/api/v1/dashboard/repos/gpu-a", "/api/v1/dashboard/refusals", "/api/v1/dashboard/whoami",
                "/api/v1/dashboard/events")) {
            given().get(path).then().statusCode(401).header("WWW-Authenticate", "Bearer").body("error", equalTo("unauthorized"));
            given().auth().oauth2("not-a-token-of-this-service").get(path).then().statusCode(401);
            given().auth().oauth2("test-other-role-token-0123456789").get(path).then().statusCode(403);
        }
        given().auth().oauth2(VIEWER_TOKEN).get("/api/v1/dashboard/whoami").then().statusCode(200)
                .body("principal", equalTo("test-viewer"));
        given().auth().oauth2(VIEWER_TOKEN).get("/api/v1/dashboard/fleet?model=model of " + machine).then().statusCode(200)
                .body(containsString("<a href=\"/dashboard/machines/" + machine + "\">"));
    }

    @Test
    void theMachineViewShowsGpusHoldersWithExclusiveMarkedAndTheGatesVersionAgainstTheLatest() {
        String machine = Inventories.uniqueMachine("view");
        String model = "NVIDIA model of " + machine;
        FleetTopics.inventory(Inventories.nvidiaHost(machine, Inventories.now(), 2, model));
        FleetTopics.gateStatus(gate(machine, "gate-1", 3, Inventories.now(),
                grant("gpu-a", GPU_A_GUID, "nvidia.com/gpu=0", true),
                grant("gpu-b", GPU_B_GUID, "nvidia.com/gpu=all", false)));
        FleetTopics.raw(Topics.GRANTS_TOPIC, machine, EventJson.toBytes(new GrantSnapshot(machine, 5, Instant.now(), List.of())));
        awaitMachine(machine);

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> FleetApi.asViewer().get("/api/v1/dashboard/machines/" + machine)
                .then().statusCode(200).body(allOf(
                        containsString("<tr data-device=\"nvidia.com/gpu=0\">"),
                        containsString("gpu-a</a> <span class=\"badge excl\">exclusive</span>"),
                        containsString("Latest grant version</dt><dd>5</dd>"),
                        containsString(">behind</span>"))));
        FleetApi.asViewer().given().auth().oauth2(VIEWER_TOKEN).queryParam("model", model).queryParam("show", "held")
                .get("/api/v1/dashboard/fleet").then().statusCode(200).body(allOf(containsString(machine),
                        containsString("2 × nvidia " + model), containsString(">behind</span>")));
        given().auth().oauth2(VIEWER_TOKEN).queryParam("model", model).queryParam("vendor", "amd")
                .get("/api/v1/dashboard/fleet").then().statusCode(200).body(allOf(containsString("No machine matches"),
                        not(containsString("data-machine=\"" + machine + "\""))));
        FleetApi.asViewer().get("/api/v1/dashboard/fleet?show=some").then().statusCode(400).body("error", equalTo("invalid-parameter"));
        // the page's text is escaped: a name from the topics is never markup
        FleetApi.asViewer().get("/api/v1/dashboard/repos/gpu-a@" + machine).then().statusCode(200)
                .body(containsString("<code>nvidia.com/gpu=0</code>"));
        // a fork is shown by its parent's name, not the parent's GUID: on its repo page and on the machine's
        FleetApi.asViewer().get("/api/v1/dashboard/repos/gpu-b@" + machine).then().statusCode(200)
                .body(allOf(containsString("(fork of <a href=\"/dashboard/repos/gpu-a@" + machine + "\">gpu-a</a>)"),
                        not(containsString(GPU_A_GUID))));
        FleetApi.asViewer().get("/api/v1/dashboard/machines/" + machine).then().statusCode(200)
                .body(allOf(containsString("<a href=\"/dashboard/repos/gpu-b@" + machine + "\">gpu-b</a> <span class=\"muted\">"
                                + "(fork of <a href=\"/dashboard/repos/gpu-a@" + machine + "\">gpu-a</a>)</span>"),
                        not(containsString("(fork of " + GPU_A_GUID + ")"))));
    }

    @Test
    void aGrantWhoseDeviceSetupRemovedIsShownOrphanedInRestAndOnTheMachinePage() {
        String machine = Inventories.uniqueMachine("orphan");
        FleetTopics.inventory(Inventories.nvidiaHost(machine, Inventories.now(), 1, "NVIDIA model of " + machine));
        // the gate still enforces a grant of a name the inventory no longer lists (setup --force removed it)
        FleetTopics.gateStatus(gate(machine, "gate-1", 4, Inventories.now(),
                grant("gpu-a", GPU_A_GUID, "nvidia.com/gpu=0", false),
                grant("gpu-a", GPU_A_GUID, "nvidia.com/gpu=7", false)));
        awaitMachine(machine);

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> FleetApi.asViewer().get("/api/v1/machines/{m}", machine)
                .then().statusCode(200).body("orphaned.name", org.hamcrest.Matchers.contains("nvidia.com/gpu=7"))
                .body("orphaned[0].holders.repo", org.hamcrest.Matchers.contains("gpu-a")));
        FleetApi.asViewer().get("/api/v1/dashboard/machines/" + machine).then().statusCode(200).body(allOf(
                containsString("<code>nvidia.com/gpu=7</code> <span class=\"badge bad\">orphaned</span>"),
                containsString("<code>rdc machine setup " + machine + "</code> brings it back"),
                not(containsString("<code>nvidia.com/gpu=0</code> <span class=\"badge bad\">orphaned</span>"))));
    }

    @Test
    void aRepoPageIsTheRepoOnOneMachineNotEverySameNamedRepo() {
        String here = Inventories.uniqueMachine("here");
        String there = Inventories.uniqueMachine("there");
        String repo = "twin-" + UUID.randomUUID().toString().substring(0, 8);
        for (String machine : List.of(here, there)) {
            FleetTopics.raw(Topics.GRANT_EVENTS_TOPIC, machine, EventJson.toBytes(new GrantEvent(UUID.randomUUID().toString(),
                    GrantEvent.Type.GRANTED, machine, UUID.randomUUID().toString(), repo, "nvidia.com/gpu=" + (machine.equals(here) ? 0 : 1),
                    false, "alice", null, 1L, Instant.now())));
            FleetTopics.raw(Topics.GATE_DECISIONS_TOPIC, machine, EventJson.toBytes(new GateDecision(machine, "gate-1", repo,
                    GPU_A_GUID, "POST", "/containers/create", "privileged", null,
                    "privileged mode is refused on " + machine, "remove --privileged", Instant.now())));
        }
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            String html = FleetApi.asViewer().get("/api/v1/dashboard/repos/" + repo + "@" + here).then().statusCode(200)
                    .extract().asString();
            assertThat(html).contains("<td>granted</td><td>" + here + "</td><td><code>nvidia.com/gpu=0</code></td>")
                    .contains("privileged mode is refused on " + here)
                    .doesNotContain(there);
        });
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            String other = FleetApi.asViewer().get("/api/v1/dashboard/repos/" + repo + "@" + there).then().statusCode(200)
                    .extract().asString();
            assertThat(other).contains("<code>nvidia.com/gpu=1</code>").doesNotContain(here);
        });
        // a bare name is no repo: it shows no history, only where repos of that name live
        assertThat(FleetApi.asViewer().get("/api/v1/dashboard/repos/" + repo).then().statusCode(200).extract().asString())
                .contains("id=\"pick-machine\"").doesNotContain("nvidia.com/gpu=");
        FleetApi.asViewer().get("/api/v1/dashboard/repos/" + repo + "@").then().statusCode(400)
                .body("error", equalTo("invalid-parameter"));
        given().get("/dashboard/repos/" + repo + "@" + here).then().statusCode(200)
                .body(allOf(containsString("/api/v1/dashboard/repos/" + repo + "@" + here), containsString("data-machine=\"" + here + "\"")));
    }

    @Test
    void refusalsShowTheMessageAndFixAndOnlyTheLatestAreKeptPerRepo() {
        String machine = Inventories.uniqueMachine("refused");
        String repo = "repo-" + UUID.randomUUID().toString().substring(0, 8);
        for (int i = 0; i < 5; i++) {
            String fix = "rdc repo gpu grant " + repo + "@" + machine + " --device nvidia.com/gpu=" + i;
            FleetTopics.raw(Topics.GATE_DECISIONS_TOPIC, machine, EventJson.toBytes(new GateDecision(machine, "gate-1", repo,
                    GPU_A_GUID, "POST", "/containers/create", "device-not-granted", "nvidia.com/gpu=" + i,
                    "device nvidia.com/gpu=" + i + " is not granted to repo " + repo + " on machine " + machine
                            + "; an operator can grant it with: " + fix, fix, Instant.now())));
        }
        // a record that cannot be held is skipped, and the consumer goes on
        FleetTopics.raw(Topics.GATE_DECISIONS_TOPIC, machine, "{\"machine\":\"other\"}".getBytes(StandardCharsets.UTF_8));
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> FleetApi.asViewer().get("/api/v1/dashboard/refusals?repo=" + repo)
                .then().statusCode(200).body(allOf(containsString("<td>3</td>"), // recent-per-repo=3 in tests
                        containsString("<code class=\"fix\">rdc repo gpu grant " + repo + "@" + machine + " --device nvidia.com/gpu=4</code>"))));
    }

    /**
     * The Fix column shows the fix each refusal carries (gpu.gate-decisions.v1 "fix"), for every kind; among them
     * the five that showed "-" while the fix was dug out of the message (issue 33). A record of a gate from before
     * the field is still read: its message shows, its fix is "-".
     */
    @Test
    void theFixColumnShowsTheFixTheGateSentForEveryRefusalKind() {
        String machine = Inventories.uniqueMachine("fixes");
        String repo = "fix-" + UUID.randomUUID().toString().substring(0, 8);
        List<List<String>> refusals = List.of(
                List.of("privileged", "remove --privileged (compose: privileged: true) and attach granted devices with --device <vendor>/<class>=<device>"),
                List.of("runtime", "remove --runtime nvidia and write --device nvidia.com/gpu=all instead"),
                List.of("device-cgroup-rule", "request the device by its granted CDI name instead (--device <vendor>/<class>=<device>)"),
                List.of("exec-privileged", "run exec without --privileged"),
                List.of("capability", "remove --cap-add SYS_ADMIN (compose: cap_add)"),
                List.of("daemon-misconfigured", "fix the daemon.json of repo " + repo + "'s Docker daemon as its check says, restart that daemon, and retry"));
        // one repo per kind: the dashboard keeps the newest 3 refusals of a repo in tests
        for (List<String> r : refusals) {
            FleetTopics.raw(Topics.GATE_DECISIONS_TOPIC, machine, EventJson.toBytes(new GateDecision(machine, "gate-1",
                    repo + "-" + r.get(0), GPU_A_GUID, "POST", "/containers/create", r.get(0), null,
                    r.get(0) + " is refused, see the fix", r.get(1), Instant.now())));
        }
        String older = "older-" + UUID.randomUUID().toString().substring(0, 8);
        FleetTopics.raw(Topics.GATE_DECISIONS_TOPIC, machine, ("{\"machine\":\"" + machine + "\",\"gateId\":\"gate-1\",\"repoName\":\""
                + older + "\",\"method\":\"POST\",\"endpoint\":\"/containers/create\",\"rule\":\"privileged\",\"message\":"
                + "\"privileged mode is refused (a gate before fix)\",\"at\":\"" + Instant.now() + "\"}").getBytes(StandardCharsets.UTF_8));

        for (List<String> r : refusals) {
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
                String html = FleetApi.asViewer().get("/api/v1/dashboard/refusals?repo=" + repo + "-" + r.get(0)).then()
                        .statusCode(200).extract().asString();
                assertThat(html).contains("<code class=\"fix\">" + escaped(r.get(1)) + "</code>").doesNotContain("<td>-</td>");
            });
        }
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            String html = FleetApi.asViewer().get("/api/v1/dashboard/refusals?repo=" + older).then().statusCode(200).extract().asString();
            assertThat(html).contains("privileged mode is refused (a gate before fix)").contains("<td>-</td>");
        });
    }

    /** As Qute writes text into HTML. */
    private static String escaped(String text) {
        return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace("\"", "&quot;").replace("'", "&#39;");
    }

    @Test
    void aRepoShowsItsGrantHistory() {
        String machine = Inventories.uniqueMachine("history");
        String repo = "hist-" + UUID.randomUUID().toString().substring(0, 8);
        GrantEvent granted = new GrantEvent(UUID.randomUUID().toString(), GrantEvent.Type.GRANTED, machine, GPU_A_GUID, repo,
                "nvidia.com/gpu=1", true, "alice", null, 9L, Instant.now());
        FleetTopics.raw(Topics.GRANT_EVENTS_TOPIC, machine, EventJson.toBytes(granted));
        FleetTopics.raw(Topics.GRANT_EVENTS_TOPIC, machine, EventJson.toBytes(granted)); // a replay adds nothing
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            String html = FleetApi.asViewer().get("/api/v1/dashboard/repos/" + repo + "@" + machine).then().statusCode(200)
                    .extract().asString();
            assertThat(html).contains("<td>granted</td><td>" + machine + "</td><td><code>nvidia.com/gpu=1</code></td><td>yes</td><td>alice</td>");
            assertThat(html.split("<td>granted</td>", -1)).hasSize(2);
        });
    }

    @Test
    void theLiveStreamNamesTheMachineWhoseGateChanged() throws Exception {
        String machine = Inventories.uniqueMachine("live");
        FleetTopics.inventory(Inventories.nvidiaHost(machine, Inventories.now()));
        awaitMachine(machine);
        BlockingQueue<String> lines = new LinkedBlockingQueue<>();
        HttpResponse<InputStream> stream = HttpClient.newHttpClient().send(HttpRequest.newBuilder(URI.create(base + "api/v1/dashboard/events"))
                .header("Authorization", "Bearer " + VIEWER_TOKEN).header("Accept", "text/event-stream").build(),
                HttpResponse.BodyHandlers.ofInputStream());
        assertThat(stream.statusCode()).isEqualTo(200);
        Thread reader = new Thread(() -> {
            try (BufferedReader in = new BufferedReader(new InputStreamReader(stream.body(), StandardCharsets.UTF_8))) {
                for (String line; (line = in.readLine()) != null; ) {
                    lines.add(line);
                }
            } catch (Exception ignored) {
                // the test ends the stream
            }
        });
        reader.setDaemon(true);
        reader.start();
        assertThat(lines.poll(10, TimeUnit.SECONDS)).isEqualTo("event:ready");

        FleetTopics.gateStatus(gate(machine, "gate-1", 1, Inventories.now(), grant("gpu-a", GPU_A_GUID, "nvidia.com/gpu=1", false)));
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        String previous = "";
        boolean seen = false;
        while (!seen && System.nanoTime() < deadline) {
            String line = lines.poll(1, TimeUnit.SECONDS);
            if (line != null) {
                seen = previous.equals("event:gate") && line.equals("data:" + machine);
                previous = line;
            }
        }
        stream.body().close();
        assertThat(seen).as("an SSE event gate with data %s", machine).isTrue();
    }
}
