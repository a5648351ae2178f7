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
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** A machine leaving the fleet: refused while it holds grants, unless they are revoked with it. */
@QuarkusTest
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class MachineRemovalTest {

    private final GrantApi api = new GrantApi();

    @Test
    void removalIsRefusedWhileTheMachineHoldsGrants() {
        RepoInfo a = Fleet.repo("a");
        TestMachine m = TestMachine.withRepos(api, "keep", a);
        api.grant(m.ref(a), "nvidia.com/gpu=0", false, "0");

        Response refused = api.request().delete("/api/v1/machines/{m}", m.name);

        assertThat(refused.statusCode()).isEqualTo(409);
        assertThat(refused.<String>path("error")).isEqualTo("machine-has-grants");
        assertThat(refused.<List<String>>path("grants")).containsExactly("a nvidia.com/gpu=0");
        assertThat(refused.<String>path("hint")).contains("--revoke-grants");
        assertThat(api.repoGrants(m.ref(a)).<List<String>>path("grants.device")).containsExactly("nvidia.com/gpu=0");
    }

    @Test
    void aRevokeGrantsThatIsNotABooleanIs400AndRemovesNothing() {
        RepoInfo a = Fleet.repo("a");
        TestMachine m = TestMachine.withRepos(api, "spelled", a);
        api.grant(m.ref(a), "nvidia.com/gpu=0", false, "0");

        for (String spelling : List.of("yes", "1", "TRUE")) {
            Response refused = api.request().queryParam("revokeGrants", spelling).delete("/api/v1/machines/{m}", m.name);

            assertThat(refused.statusCode()).as(spelling).isEqualTo(400);
            assertThat(refused.<String>path("error")).isEqualTo("invalid-parameter");
            assertThat(refused.<String>path("detail")).contains("revokeGrants=\"" + spelling + "\" is not a boolean");
        }
        assertThat(api.repoGrants(m.ref(a)).<List<String>>path("grants.device")).containsExactly("nvidia.com/gpu=0");
    }

    @Test
    void removalWithRevokeGrantsRevokesAuditsTombstonesAndForgetsTheMachine() {
        RepoInfo a = Fleet.repo("a");
        RepoInfo b = Fleet.repo("b");
        TestMachine m = TestMachine.withRepos(api, "gone", a, b);
        api.grant(m.ref(a), "nvidia.com/gpu=0", true, "0");
        api.grant(m.ref(b), "nvidia.com/gpu=1", false, "0");
        TestMachine.fleet().publishGateStatus(m.name, "g1", 2, List.of());

        Response removed = api.as(GrantApi.ALICE_TOKEN).request().queryParam("revokeGrants", true)
                .queryParam("reason", "decommissioned").delete("/api/v1/machines/{m}", m.name);

        assertThat(removed.statusCode()).isEqualTo(200);
        assertThat(removed.<Integer>path("revokedCount")).isEqualTo(2);
        assertThat(removed.<Integer>path("version")).isEqualTo(3);
        assertThat(api.machineGrants(m.name).<List<?>>path("grants")).isEmpty();
        assertThat(api.machineGrants(m.name).<Integer>path("version")).isEqualTo(3); // a version never goes back
        // forgotten: its repos are unknown until its next inventory
        assertThat(api.repoGrants(m.ref(a)).statusCode()).isEqualTo(404);
        Response audit = api.request().queryParam("machine", m.name).get("/api/v1/audit");
        assertThat(audit.<List<String>>path("entries.event")).containsExactly("granted", "granted", "revoked", "revoked");
        assertThat(audit.<String>path("entries[2].reason")).isEqualTo("machine " + m.name + " removed from the fleet");
        assertThat(audit.<String>path("entries[2].requestReason")).isEqualTo("decommissioned");
        assertThat(audit.<String>path("entries[2].actor")).isEqualTo("alice");

        String kafka = KafkaTestResource.broker().bootstrapServers();
        List<ConsumerRecord<String, byte[]>> inventory = TopicReader.readUntil(kafka, Topics.INVENTORY, m.name,
                read -> !read.isEmpty() && read.get(read.size() - 1).value() == null, Duration.ofSeconds(20));
        assertThat(inventory.get(inventory.size() - 1).value()).as("the inventory's tombstone").isNull();
        List<ConsumerRecord<String, byte[]>> gate = TopicReader.readUntil(kafka, Topics.GATE_STATUS,
                Topics.gateStatusKey(m.name, "g1"), read -> read.size() >= 2, Duration.ofSeconds(20));
        assertThat(gate.get(gate.size() - 1).value()).as("the gate status's tombstone").isNull();
        List<GrantEvent> events = TopicReader.readUntil(kafka, Topics.GRANT_EVENTS, m.name, read -> read.size() >= 4,
                Duration.ofSeconds(20)).stream().map(r -> EventJson.fromBytes(r.value(), GrantEvent.class)).toList();
        assertThat(events).extracting(GrantEvent::type).containsExactly(GrantEvent.Type.GRANTED,
                GrantEvent.Type.GRANTED, GrantEvent.Type.REVOKED, GrantEvent.Type.REVOKED);
    }

    @Test
    void removalNeedsTheOperatorRoleAndAKnownMachine() {
        assertThat(api.as(GrantApi.VIEWER_TOKEN).request().delete("/api/v1/machines/{m}", "anything").statusCode())
                .isEqualTo(403);
        Response unknown = api.request().delete("/api/v1/machines/{m}", Fleet.uniqueMachine("never"));
        assertThat(unknown.statusCode()).isEqualTo(404);
        assertThat(unknown.<String>path("error")).isEqualTo("unknown-machine");
    }

    @Test
    void aMachineSetUpButNeverPublishedCanBeRemoved() throws Exception {
        // rdc machine setup registers the machine's key before its agent publishes anything
        String machine = Fleet.uniqueMachine("setup-only");
        java.security.KeyPair pair = io.rediacc.gpu.contracts.signing.SigningKeys.generate();
        assertThat(api.request().contentType(io.restassured.http.ContentType.JSON)
                .body(java.util.Map.of("publicKey", io.rediacc.gpu.contracts.signing.SigningKeys.publicPem(pair.getPublic())))
                .put("/api/v1/machines/{m}/key", machine).statusCode()).isEqualTo(200);

        Response removed = api.request().delete("/api/v1/machines/{m}", machine);

        assertThat(removed.statusCode()).as(removed.asString()).isEqualTo(200);
        assertThat(removed.<String>path("machine")).isEqualTo(machine);
        assertThat(removed.<Integer>path("revokedCount")).isZero();
    }
}
