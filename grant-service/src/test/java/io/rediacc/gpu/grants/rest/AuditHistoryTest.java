package io.rediacc.gpu.grants.rest;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.GrantEvent;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.grants.testing.Fleet;
import io.rediacc.gpu.grants.testing.GrantApi;
import io.rediacc.gpu.grants.testing.TestMachine;
import io.rediacc.gpu.grants.testing.TopicReader;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.rediacc.gpu.testsupport.PostgresTestResource;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** The history: every grant, revoke and refusal in the database, queried by GET /api/v1/audit. */
@QuarkusTest
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class AuditHistoryTest {

    private final GrantApi api = new GrantApi();

    @Test
    void grantsRevokesAndRefusalsAreKeptWithWhoWhatOutcomeAndReason() {
        RepoInfo owner = Fleet.repo("owner");
        RepoInfo other = Fleet.repo("other");
        TestMachine m = TestMachine.withRepos(api, "hist", owner, other);
        Instant before = Instant.now();
        api.as(GrantApi.ALICE_TOKEN).grant(m.ref(owner),
                Map.of("device", "nvidia.com/gpu=0", "exclusive", true, "reason", "ticket-123"), "0");
        api.as(GrantApi.BOB_TOKEN).grant(m.ref(other), Map.of("device", "nvidia.com/gpu=all", "reason", "ticket-9"), "0");
        api.as(GrantApi.ALICE_TOKEN).request().urlEncodingEnabled(false).queryParam("wait", "0")
                .queryParam("reason", "done").delete("/api/v1/repos/" + m.ref(owner) + "/grants/nvidia.com%2Fgpu=0");

        Response page = api.request().queryParam("machine", m.name).get("/api/v1/audit");

        assertThat(page.statusCode()).isEqualTo(200);
        // the machine's key registration (rdc machine setup) is in the trail too (issue 31)
        assertThat(page.<List<String>>path("entries.event")).containsExactly("key-registered", "granted", "refused", "revoked");
        assertThat(page.<List<String>>path("entries.actor")).containsExactly("test-operator", "alice", "bob", "alice");
        assertThat(page.<List<String>>path("entries.repo")).containsExactly("", "owner", "other", "owner");
        assertThat(page.<List<String>>path("entries.requestReason")).containsExactly(null, "ticket-123", "ticket-9", "done");
        assertThat(page.<List<Integer>>path("entries.version")).containsExactly(null, 1, null, 2);
        assertThat(page.<String>path("entries[0].reason")).startsWith("key ").endsWith(" registered");
        assertThat(page.<String>path("entries[2].reason")).startsWith("exclusive-conflict: ");
        assertThat(Instant.parse(page.path("entries[1].at"))).isAfterOrEqualTo(before.minusSeconds(1));
        assertThat(page.<String>path("next")).isNull();
        // each row is the Kafka audit event's twin (written in the same transaction)
        List<GrantEvent> events = TopicReader.readUntil(KafkaTestResource.broker().bootstrapServers(),
                        Topics.GRANT_EVENTS, m.name, read -> read.size() >= 3, Duration.ofSeconds(20)).stream()
                .map(r -> EventJson.fromBytes(r.value(), GrantEvent.class)).toList();
        assertThat(events).extracting(GrantEvent::id).containsExactlyElementsOf(
                page.<List<String>>path("entries.eventId").subList(1, 4));
        assertThat(events.get(0).requestReason()).isEqualTo("ticket-123");
    }

    @Test
    void filtersByRepoDeviceAndTimeAndPagesByKeyset() {
        RepoInfo a = Fleet.repo("a");
        RepoInfo b = Fleet.repo("b");
        TestMachine m = TestMachine.withRepos(api, "page", a, b);
        for (String d : List.of("nvidia.com/gpu=0", "nvidia.com/gpu=1", "nvidia.com/gpu=all")) {
            api.grant(m.ref(a), d, false, "0");
        }
        api.grant(m.ref(b), "nvidia.com/gpu=1", false, "0");
        Instant after = Instant.now().plusSeconds(1);

        assertThat(api.request().queryParam("machine", m.name).queryParam("repo", "b").get("/api/v1/audit")
                .<List<String>>path("entries.device")).containsExactly("nvidia.com/gpu=1");
        assertThat(api.request().queryParam("machine", m.name).queryParam("device", "nvidia.com/gpu=1").get("/api/v1/audit")
                .<List<String>>path("entries.repo")).containsExactly("a", "b");
        assertThat(api.request().queryParam("machine", m.name).queryParam("since", after.toString()).get("/api/v1/audit")
                .<List<?>>path("entries")).isEmpty();
        assertThat(api.request().queryParam("machine", m.name).queryParam("until", after.toString()).get("/api/v1/audit")
                .<List<?>>path("entries")).hasSize(5); // the key registration and the four grants

        List<String> walked = new ArrayList<>();
        String cursor = null;
        int pages = 0;
        do {
            var request = api.request().queryParam("machine", m.name).queryParam("limit", 3);
            Response page = (cursor == null ? request : request.queryParam("after", cursor)).get("/api/v1/audit");
            walked.addAll(page.path("entries.device"));
            cursor = page.path("next");
            pages++;
        } while (cursor != null && pages < 10);
        assertThat(walked).containsExactly("", "nvidia.com/gpu=0", "nvidia.com/gpu=1", "nvidia.com/gpu=all", "nvidia.com/gpu=1");
        assertThat(pages).isEqualTo(2);
    }

    @Test
    void badFiltersAreRefusedWithWhatToWrite() {
        Response since = api.request().queryParam("since", "yesterday").get("/api/v1/audit");
        Response limit = api.request().queryParam("limit", "5000").get("/api/v1/audit");
        Response device = api.request().queryParam("device", "gpu0").get("/api/v1/audit");

        assertThat(since.statusCode()).isEqualTo(400);
        assertThat(since.<String>path("error")).isEqualTo("invalid-parameter");
        assertThat(since.<String>path("parameter")).isEqualTo("since");
        assertThat(since.<String>path("hint")).contains("2026-11-29T10:00:00Z");
        assertThat(limit.statusCode()).isEqualTo(400);
        assertThat(limit.<String>path("error")).isEqualTo("invalid-parameter");
        assertThat(limit.<String>path("parameter")).isEqualTo("limit");
        assertThat(device.statusCode()).isEqualTo(400);
    }

    @Test
    void aViewerMayReadTheHistoryAndNobodyElse() {
        assertThat(api.as(GrantApi.VIEWER_TOKEN).request().get("/api/v1/audit").statusCode()).isEqualTo(200);
        assertThat(api.as(null).request().get("/api/v1/audit").statusCode()).isEqualTo(401);
    }

    @Test
    void aReasonWithAControlCharacterOrTooLongIsRefused() {
        RepoInfo a = Fleet.repo("a");
        TestMachine m = TestMachine.withRepos(api, "reason", a);

        Response newline = api.grant(m.ref(a), Map.of("device", "nvidia.com/gpu=0", "reason", "a\nb"), "0");
        Response longer = api.grant(m.ref(a), Map.of("device", "nvidia.com/gpu=0", "reason", "x".repeat(501)), "0");

        assertThat(newline.statusCode()).isEqualTo(400);
        assertThat(newline.<String>path("error")).isEqualTo("invalid-reason");
        assertThat(longer.statusCode()).isEqualTo(400);
        assertThat(api.repoGrants(m.ref(a)).<List<?>>path("grants")).isEmpty();
    }
}
