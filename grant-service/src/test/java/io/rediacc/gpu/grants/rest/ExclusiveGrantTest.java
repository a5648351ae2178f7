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
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Rule 4: exclusive reservations, checked under the machine's lock; overlaps are warnings. */
@QuarkusTest
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class ExclusiveGrantTest {

    private final GrantApi api = new GrantApi();

    @Test
    void exclusiveIsRefusedWhileAnotherRepoHoldsTheName() {
        RepoInfo holder = Fleet.repo("holder");
        RepoInfo greedy = Fleet.repo("greedy");
        TestMachine m = TestMachine.withRepos(api, "excl", holder, greedy);
        api.grant(m.ref(holder), "nvidia.com/gpu=0", false, "0");

        Response refused = api.grant(m.ref(greedy), "nvidia.com/gpu=0", true, "0");

        assertThat(refused.statusCode()).isEqualTo(409);
        assertThat(refused.<String>path("error")).isEqualTo("exclusive-conflict");
        assertThat(refused.<String>path("detail")).contains("it is granted to repo holder (" + holder.guid() + ")");
        assertThat(refused.<List<String>>path("holders.repo")).containsExactly("holder");
        assertThat(api.repoGrants(m.ref(greedy)).<List<?>>path("grants")).isEmpty();
    }

    @Test
    void nameHeldExclusivelyIsRefusedToOtherRepos() {
        RepoInfo owner = Fleet.repo("owner");
        RepoInfo other = Fleet.repo("other");
        TestMachine m = TestMachine.withRepos(api, "held", owner, other);
        assertThat(api.grant(m.ref(owner), "nvidia.com/gpu=1", true, "0").statusCode()).isEqualTo(202);

        Response shared = api.grant(m.ref(other), "nvidia.com/gpu=1", false, "0");
        Response exclusive = api.grant(m.ref(other), "nvidia.com/gpu=1", true, "0");

        assertThat(shared.statusCode()).isEqualTo(409);
        assertThat(shared.<String>path("detail"))
                .isEqualTo("nvidia.com/gpu=1 on " + m.name + " is reserved exclusively by repo owner (" + owner.guid() + ")");
        assertThat(exclusive.statusCode()).isEqualTo(409);
        // a name of another card is not covered by the reservation (CardExclusivityTest has every alias)
        assertThat(api.grant(m.ref(other), "nvidia.com/gpu=0", false, "0").statusCode()).isEqualTo(202);
    }

    @Test
    void theHolderMayRepeatItsExclusiveGrant() {
        RepoInfo owner = Fleet.repo("owner");
        TestMachine m = TestMachine.withRepos(api, "repeat", owner);
        api.grant(m.ref(owner), "nvidia.com/gpu=0", true, "0");

        Response again = api.grant(m.ref(owner), "nvidia.com/gpu=0", true, "0");

        assertThat(again.statusCode()).isEqualTo(200);
        assertThat(again.<Boolean>path("exclusive")).isTrue();
    }

    @Test
    void overlapsWarnAboutOtherReposSharingTheCard() {
        RepoInfo everything = Fleet.repo("everything");
        RepoInfo focused = Fleet.repo("focused");
        TestMachine m = TestMachine.withRepos(api, "overlap", everything, focused);
        api.grant(m.ref(everything), "nvidia.com/gpu=all", false, "0");

        Response zero = api.grant(m.ref(focused), "nvidia.com/gpu=0", false, "0");
        Response render = api.grant(m.ref(focused), "rediacc.io/dri=renderD128", false, "0");

        assertThat(zero.statusCode()).isEqualTo(202);
        assertThat(zero.<List<Map<String, Object>>>path("overlaps"))
                .containsExactly(Map.of("repo", "everything", "device", "nvidia.com/gpu=all", "exclusive", false));
        // control nodes such as /dev/nvidiactl are shared by every GPU and do not count as a card
        assertThat(render.<List<?>>path("overlaps")).isEmpty();
    }

    @Test
    void refusalsAreAuditedWithTheirReason() {
        RepoInfo owner = Fleet.repo("owner");
        RepoInfo other = Fleet.repo("other");
        TestMachine m = TestMachine.withRepos(api, "audit", owner, other);
        api.as(GrantApi.ALICE_TOKEN).request().contentType("application/json")
                .body(Map.of("device", "nvidia.com/gpu=0", "exclusive", true))
                .queryParam("wait", "0").post("/api/v1/repos/{repo}/grants", m.ref(owner));
        api.as(GrantApi.BOB_TOKEN).request().contentType("application/json")
                .body(Map.of("device", "nvidia.com/gpu=0"))
                .queryParam("wait", "0").post("/api/v1/repos/{repo}/grants", m.ref(other));
        api.grant(m.ref(other), "nvidia.com/gpu=9", false, "0");

        List<GrantEvent> events = TopicReader.readUntil(KafkaTestResource.broker().bootstrapServers(),
                        Topics.GRANT_EVENTS, m.name, read -> read.size() >= 3, Duration.ofSeconds(20)).stream()
                .map(r -> EventJson.fromBytes(r.value(), GrantEvent.class)).toList();

        assertThat(events).extracting(GrantEvent::type)
                .containsExactly(GrantEvent.Type.GRANTED, GrantEvent.Type.REFUSED, GrantEvent.Type.REFUSED);
        assertThat(events.get(0).actor()).isEqualTo("alice");
        assertThat(events.get(0).version()).isEqualTo(1L);
        assertThat(events.get(1).actor()).isEqualTo("bob");
        assertThat(events.get(1).repoGuid()).isEqualTo(other.guid());
        assertThat(events.get(1).reason()).startsWith("exclusive-conflict: ").contains("reserved exclusively by repo owner");
        assertThat(events.get(1).version()).isNull();
        assertThat(events.get(2).reason()).startsWith("unknown-device: ");
    }
}
