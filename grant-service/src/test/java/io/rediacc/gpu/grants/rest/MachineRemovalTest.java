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
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() ->
                api.machineGrants(m.name).<List<String>>path("gates.gateId").contains("g1")); // the removal tombstones the gates it knows

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
        assertThat(audit.<List<String>>path("entries.event")).containsExactly("key-registered", "granted", "granted",
                "revoked", "revoked", "key-revoked");
        assertThat(audit.<String>path("entries[3].reason")).isEqualTo("machine " + m.name + " removed from the fleet");
        assertThat(audit.<String>path("entries[3].requestReason")).isEqualTo("decommissioned");
        assertThat(audit.<String>path("entries[3].actor")).isEqualTo("alice");
        assertThat(audit.<String>path("entries[5].reason")).startsWith("key ").contains(" revoked: machine " + m.name
                + " removed from the fleet: decommissioned");
        assertThat(api.request().get("/api/v1/machines/{m}/key", m.name).statusCode()).as("the key is revoked").isEqualTo(404);

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

    /** An inventory of {@code m} as its node-agent signs it at {@code at}: kept, to be produced (again) later. */
    private record Signed(byte[] value, java.util.Map<String, byte[]> headers) {
    }

    private static Signed inventorySignedAt(TestMachine m, java.time.Instant at) {
        byte[] value = EventJson.toBytes(Fleet.inventory(m.name, m.devices, m.repos));
        java.util.Map<String, byte[]> headers = new java.util.LinkedHashMap<>(io.rediacc.gpu.contracts.events.CloudEventHeaders
                .of(Topics.INVENTORY_TOPIC, "/test", m.name, java.util.UUID.randomUUID().toString(), at));
        java.security.KeyPair key = Fleet.keyOf(m.name);
        new io.rediacc.gpu.contracts.signing.RecordSigner(key.getPrivate(), key.getPublic())
                .sign(Topics.INVENTORY, m.name, headers, value);
        return new Signed(value, headers);
    }

    private static void produce(String topic, String key, byte[] value, java.util.Map<String, byte[]> headers) {
        TestMachine.fleet().sendWithHeaders(topic, key, value, System.currentTimeMillis(), headers);
    }

    private double dropped(String topic, String reason) {
        var c = metrics.find("grants.input.dropped").tag("topic", topic).tag("reason", reason).counter();
        return c == null ? 0 : c.count();
    }

    @jakarta.inject.Inject
    io.micrometer.core.instrument.MeterRegistry metrics;

    /**
     * Issue 31: a removal is final. The inventory the machine signed just before the removal, arriving after it,
     * does not bring the machine back (its key was revoked in the removal's transaction); grants get 409 saying
     * so until the machine registers again; after it rejoins, neither that inventory nor the removal's tombstone
     * replayed byte for byte changes anything. Key registrations and the revocation are in the audit trail.
     */
    @Test
    void aRemovalIsFinalUntilTheMachineRegistersAgainAndNothingSignedBeforeItComesBack() {
        RepoInfo a = Fleet.repo("a");
        TestMachine m = TestMachine.withRepos(api, "final", a);
        api.grant(m.ref(a), "nvidia.com/gpu=0", false, "0");
        Signed beforeRemoval = inventorySignedAt(m, java.time.Instant.now());

        Response removed = api.request().queryParam("revokeGrants", true).delete("/api/v1/machines/{m}", m.name);
        assertThat(removed.statusCode()).isEqualTo(200);

        double unregistered = dropped(Topics.INVENTORY, "unregistered-machine");
        produce(Topics.INVENTORY, m.name, beforeRemoval.value(), beforeRemoval.headers()); // signed before, arrives after
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60))
                .until(() -> dropped(Topics.INVENTORY, "unregistered-machine") > unregistered);
        Response refused = api.grant(m.ref(a), "nvidia.com/gpu=0", false, "0");
        assertThat(refused.statusCode()).as(refused.asString()).isEqualTo(409);
        assertThat(refused.<String>path("detail")).contains("was removed from the fleet");
        assertThat(refused.<String>path("hint")).contains("rdc machine setup " + m.name);
        assertThat(api.machineGrants(m.name).<List<?>>path("grants")).isEmpty();

        // the machine rejoins: its key registered again (rdc machine setup), then a fresh inventory
        Response registered = api.request().contentType(io.restassured.http.ContentType.JSON)
                .body(java.util.Map.of("publicKey", io.rediacc.gpu.contracts.signing.SigningKeys.publicPem(Fleet.keyOf(m.name).getPublic())))
                .put("/api/v1/machines/{machine}/key", m.name);
        assertThat(registered.statusCode()).isEqualTo(200);
        double replays = dropped(Topics.INVENTORY, "replay");
        produce(Topics.INVENTORY, m.name, beforeRemoval.value(), beforeRemoval.headers());
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> dropped(Topics.INVENTORY, "replay") > replays);
        assertThat(api.repoGrants(m.ref(a)).statusCode()).as("the old inventory did not bring the repo back").isEqualTo(404);

        m.replaceRepos(api, a); // a fresh inventory, signed now
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() -> api.repoGrants(m.ref(a)).statusCode() == 200);
        ConsumerRecord<String, byte[]> tombstone = TopicReader.readUntil(KafkaTestResource.broker().bootstrapServers(),
                Topics.INVENTORY, m.name, read -> read.stream().anyMatch(r -> r.value() == null), Duration.ofSeconds(20))
                .stream().filter(r -> r.value() == null).findFirst().orElseThrow();
        double tombstoneReplays = dropped(Topics.INVENTORY, "replay");
        java.util.Map<String, byte[]> headers = new java.util.LinkedHashMap<>();
        tombstone.headers().forEach(h -> headers.put(h.key(), h.value()));
        produce(Topics.INVENTORY, m.name, null, headers); // the removal replayed byte for byte
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60))
                .until(() -> dropped(Topics.INVENTORY, "replay") > tombstoneReplays);
        assertThat(api.repoGrants(m.ref(a)).statusCode()).as("the rejoined machine stays").isEqualTo(200);
        assertThat(api.grant(m.ref(a), "nvidia.com/gpu=1", false, "0").statusCode()).isIn(200, 202);

        Response audit = api.request().queryParam("machine", m.name).get("/api/v1/audit");
        assertThat(audit.<List<String>>path("entries.event")).containsSubsequence("key-registered", "granted", "revoked",
                "key-revoked", "key-registered", "granted");
    }

    /**
     * Issue 31: a removal served by another replica revokes the key in the shared database; this replica's next
     * lookup finds no key at once, not after a cache window, so a status the machine signs afterwards (its gate
     * still running) adds no gate.
     */
    @Test
    void aKeyRevokedByAnotherReplicasRemovalStopsVerifyingAtOnce() throws Exception {
        TestMachine m = TestMachine.withRepos(api, "other-replica", Fleet.repo("a"));
        TestMachine.fleet().publishGateStatus(m.name, "g1", 0, List.of());
        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60)).until(() ->
                api.machineGrants(m.name).<List<String>>path("gates.gateId").contains("g1")); // its key was just looked up
        try (java.sql.Connection c = PostgresTestResource.current().connect();
             var revoke = c.prepareStatement("delete from machine_keys where machine = ?");
             var removal = c.prepareStatement("insert into machine_removals (machine, generation, removed_at, removed_by)"
                     + " values (?, 1, now(), 'another replica')")) {
            revoke.setString(1, m.name);
            removal.setString(1, m.name);
            assertThat(revoke.executeUpdate()).isEqualTo(1);
            removal.executeUpdate();
        }
        double unregistered = dropped(Topics.GATE_STATUS, "unregistered-machine");

        TestMachine.fleet().publishGateStatus(m.name, "g2", 0, List.of());

        org.awaitility.Awaitility.await().atMost(Duration.ofSeconds(60))
                .until(() -> dropped(Topics.GATE_STATUS, "unregistered-machine") > unregistered);
        assertThat(api.machineGrants(m.name).<List<String>>path("gates.gateId")).doesNotContain("g2");
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
