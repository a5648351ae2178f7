package io.rediacc.gpu.grants.messaging;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.CloudEventHeaders;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.GateStatus;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.contracts.signing.RecordSigner;
import io.rediacc.gpu.contracts.signing.SigningKeys;
import io.rediacc.gpu.grants.service.KnownGate;
import io.rediacc.gpu.grants.testing.Fleet;
import io.rediacc.gpu.grants.testing.GrantApi;
import io.rediacc.gpu.grants.testing.TestMachine;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.rediacc.gpu.testsupport.PostgresTestResource;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.security.KeyPair;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 16: a GPU host speaks only for itself. Each forged record class is produced on the real broker,
 * dropped, counted by reason in grants.input.dropped, and changes nothing: the machine's repos stay what
 * its real (registered) agent said, and no forged gate is known.
 */
@QuarkusTest
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class SignedRecordsTest {

    /** /q/metrics is on the management interface, not on the API's port. */
    @io.quarkus.test.common.http.TestHTTPResource(value = "/metrics", management = true) // under the management root, /q
    java.net.URL metricsUrl;


    private final GrantApi api = new GrantApi();

    @Test
    void forgedInventoriesAreDroppedByReasonAndChangeNothing() {
        RepoInfo train = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(api, "signed-inv", train);
        TestMachine other = TestMachine.withRepos(api, "signed-other", Fleet.repo("x"));
        Fleet fleet = TestMachine.fleet();
        RepoInfo forged = Fleet.repo("forged");
        byte[] value = EventJson.toBytes(Fleet.inventory(m.name, Fleet.TWO_NVIDIA_GPUS, List.of(forged)));
        Map<String, Double> before = dropped(Topics.INVENTORY);

        fleet.send(Topics.INVENTORY, m.name, value, null, null); // no signature
        fleet.send(Topics.INVENTORY, m.name, value, null, Fleet.keyOf(other.name)); // another machine's key
        fleet.send(Topics.INVENTORY, m.name, value, null, SigningKeys.generate()); // an unknown key
        Map<String, byte[]> headers = signed(Fleet.keyOf(m.name), Topics.INVENTORY, m.name, value, Instant.now());
        fleet.sendWithHeaders(Topics.INVENTORY, m.name, EventJson.toBytes(Fleet.inventory(m.name, Fleet.TWO_NVIDIA_GPUS,
                List.of(forged, Fleet.repo("more")))), null, headers); // the right key over other bytes
        Instant ahead = Instant.now().plus(Duration.ofMinutes(20)); // pins "newer": the real agent would be ignored
        fleet.sendWithHeaders(Topics.INVENTORY, m.name, value, null, signed(Fleet.keyOf(m.name), Topics.INVENTORY, m.name,
                value, ahead));
        String stranger = Fleet.uniqueMachine("unregistered"); // a machine nobody registered
        fleet.send(Topics.INVENTORY, stranger, EventJson.toBytes(Fleet.inventory(stranger, Fleet.TWO_NVIDIA_GPUS,
                List.of(Fleet.repo("r")))), null, Fleet.keyOf(stranger));
        fleet.send(Topics.INVENTORY, m.name, null, null, Fleet.keyOf(m.name)); // a tombstone from the machine itself
        fleet.send(Topics.INVENTORY, other.name, value, null); // key other, payload m, signed by other

        awaitDrops(Topics.INVENTORY, before, Map.of("unsigned", 1, "foreign-key", 2, "bad-signature", 1, "future-time", 1,
                "unregistered-machine", 1, "foreign-tombstone", 1, "key-mismatch", 1));
        // nothing changed: m still has its own repo only, the stranger is unknown
        assertThat(api.repoGrants(forged.name() + "@" + m.name).statusCode()).isEqualTo(404);
        assertThat(api.repoGrants(m.ref(train)).statusCode()).isEqualTo(200);
        assertThat(api.machineGrants(stranger).statusCode()).isEqualTo(404);
        // and the real agent's next record applies: nothing was pinned
        RepoInfo next = Fleet.repo("next");
        m.replaceRepos(api, train, next);
        api.awaitRepo(m.ref(next), next.guid());
    }

    /**
     * Issue 31: a value the machine's own key signed is still read strictly — two inventories in one value,
     * a key twice (which one would a monitoring consumer's jq keep?), a BOM — dropped and counted as invalid.
     */
    @Test
    void signedInventoriesThatAreNotStrictJsonAreDroppedAndCounted() {
        RepoInfo train = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(api, "strict-inv", train);
        Fleet fleet = TestMachine.fleet();
        RepoInfo forged = Fleet.repo("lenient");
        String value = new String(EventJson.toBytes(Fleet.inventory(m.name, Fleet.TWO_NVIDIA_GPUS, List.of(forged))),
                StandardCharsets.UTF_8);
        Map<String, Double> before = dropped(Topics.INVENTORY);

        fleet.send(Topics.INVENTORY, m.name, (value + value).getBytes(StandardCharsets.UTF_8), null, Fleet.keyOf(m.name));
        fleet.send(Topics.INVENTORY, m.name, value.replaceFirst("\\{", "{\"machine\":\"" + m.name + "\",")
                .getBytes(StandardCharsets.UTF_8), null, Fleet.keyOf(m.name));
        fleet.send(Topics.INVENTORY, m.name, ("\uFEFF" + value).getBytes(StandardCharsets.UTF_8), null, Fleet.keyOf(m.name));

        awaitDrops(Topics.INVENTORY, before, Map.of("invalid", 3));
        assertThat(api.repoGrants(forged.name() + "@" + m.name).statusCode()).isEqualTo(404);
        assertThat(api.repoGrants(m.ref(train)).statusCode()).isEqualTo(200);
    }

    /** One flag parser in both services: rekey=TRUE is 400 here as in inventory-service, and the key stays. */
    @Test
    void rekeyInUpperCaseIsRefusedAndTheKeyStays() {
        String machine = Fleet.uniqueMachine("rekey-case");
        KeyPair first = SigningKeys.generate();
        assertThat(register(machine, first, null).statusCode()).isEqualTo(200);

        var refused = register(machine, SigningKeys.generate(), "TRUE");
        assertThat(refused.statusCode()).as(refused.asString()).isEqualTo(400);
        assertThat(refused.<String>path("error")).isEqualTo("invalid-parameter");
        assertThat(refused.<String>path("parameter")).isEqualTo("rekey");
        assertThat(refused.<String>path("detail")).isEqualTo("rekey=\"TRUE\" is not a boolean: only true or false (lower case) is accepted");
        assertThat(api.request().get("/api/v1/machines/{m}/key", machine).<String>path("keyId"))
                .isEqualTo(SigningKeys.keyId(first.getPublic()));
    }

    /** Machine names are lower case: RT-M2 would be a second machine beside rt-m2, with its own key. */
    @Test
    void aMachineNameInUpperCaseIsRefusedWithItsLowerCaseSpelling() {
        String machine = Fleet.uniqueMachine("rt-m2");
        var refused = register(machine.toUpperCase(java.util.Locale.ROOT), SigningKeys.generate(), null);
        assertThat(refused.statusCode()).as(refused.asString()).isEqualTo(400);
        assertThat(refused.<String>path("detail")).contains("use \"" + machine + "\"");
        var grants = api.machineGrants(machine.toUpperCase(java.util.Locale.ROOT));
        assertThat(grants.statusCode()).as(grants.asString()).isEqualTo(400);
        assertThat(grants.<String>path("detail")).contains("use \"" + machine + "\"");
        assertThat(api.request().get("/api/v1/machines/{m}/key", machine).statusCode()).isEqualTo(404);
    }

    @Test
    void aHostCannotForgeAGateOfAnotherMachineNorEraseOne() {
        TestMachine victim = TestMachine.withRepos(api, "signed-victim", Fleet.repo("train"));
        TestMachine attacker = TestMachine.withRepos(api, "signed-attacker", Fleet.repo("x"));
        Fleet fleet = TestMachine.fleet();
        fleet.publishGateStatus(victim.name, "real", 0, List.of());
        awaitGates(victim.name, List.of("real"));
        Map<String, Double> before = dropped(Topics.GATE_STATUS);

        Instant now = Instant.now();
        byte[] ghost = EventJson.toBytes(new GateStatus(victim.name, "ghost", 99, GateStatus.SYNCED, List.of(), List.of(), 10, now));
        String ghostKey = Topics.gateStatusKey(victim.name, "ghost");
        fleet.send(Topics.GATE_STATUS, ghostKey, ghost, now.toEpochMilli(), Fleet.keyOf(attacker.name));
        fleet.send(Topics.GATE_STATUS, ghostKey, ghost, now.toEpochMilli(), null);
        // a tombstone erasing the victim's real gate, signed by the attacker's (registered) machine key
        fleet.send(Topics.GATE_STATUS, Topics.gateStatusKey(victim.name, "real"), null, null, Fleet.keyOf(attacker.name));
        fleet.send(Topics.GATE_STATUS, Topics.gateStatusKey(victim.name, "real"), null, null, Fleet.keyOf(victim.name));

        awaitDrops(Topics.GATE_STATUS, before, Map.of("foreign-key", 1, "unsigned", 1, "foreign-tombstone", 2));
        assertThat(api.machineGrants(victim.name).<List<String>>path("gates.gateId")).containsExactly("real");
    }

    @Test
    void grantSnapshotsAndAuditEventsLeaveSignedByTheKeyTheServiceServes() {
        RepoInfo train = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(api, "signed-grants", train);
        assertThat(api.grant(m.ref(train), "nvidia.com/gpu=0", false, "0").statusCode()).isIn(201, 202);
        var served = api.as(GrantApi.VIEWER_TOKEN).request().get("/api/v1/signing-key");
        assertThat(served.statusCode()).isEqualTo(200);
        java.security.PublicKey key = SigningKeys.parsePublic(served.path("publicKey"));
        assertThat(served.<String>path("keyId")).isEqualTo(SigningKeys.keyId(key));
        for (String topic : List.of(Topics.GRANTS, Topics.GRANT_EVENTS)) {
            var records = io.rediacc.gpu.grants.testing.TopicReader.readUntil(KafkaTestResource.broker().bootstrapServers(),
                    topic, m.name, read -> !read.isEmpty(), Duration.ofSeconds(30));
            var verifier = new io.rediacc.gpu.contracts.signing.RecordVerifier(Duration.ofMinutes(2));
            for (var r : records) {
                assertThat(verifier.verify(r.topic(), r.key(), h -> r.headers().lastHeader(h) == null ? null
                        : r.headers().lastHeader(h).value(), r.value(), key, "grant-service", Instant.now()))
                        .as(topic + " record signed by grant-service").isNull();
                assertThat(verifier.verify(r.topic(), r.key(), h -> r.headers().lastHeader(h) == null ? null
                        : r.headers().lastHeader(h).value(), r.value(), SigningKeys.generate().getPublic(), "x", Instant.now()))
                        .isNotNull();
            }
        }
    }

    @Test
    void aHeartbeatOfAnHourCountsAsFiveMinutesForLiveness() {
        Instant now = Instant.now();
        GateStatus hour = new GateStatus("m1", "g", 1, GateStatus.SYNCED, List.of(), List.of(), 3600, now);
        // 3 heartbeats of an announced hour would be 3 h; capped at 5 min they are 15 min
        assertThat(new KnownGate(hour, now.minus(Duration.ofMinutes(14))).live(now, 3, Duration.ofSeconds(30))).isTrue();
        assertThat(new KnownGate(hour, now.minus(Duration.ofMinutes(16))).live(now, 3, Duration.ofSeconds(30))).isFalse();
    }

    @Test
    void reKeyingIsAnExplicitAuditedActAndTheOldKeyStopsCounting() {
        String machine = Fleet.uniqueMachine("rekey");
        KeyPair first = SigningKeys.generate();
        KeyPair second = SigningKeys.generate();
        assertThat(register(machine, first, null).<Boolean>path("changed")).isTrue();
        assertThat(register(machine, first, null).<Boolean>path("changed")).isFalse(); // idempotent
        var refused = register(machine, second, null);
        assertThat(refused.statusCode()).isEqualTo(409);
        assertThat(refused.<String>path("error")).isEqualTo("machine-key-registered");
        assertThat(refused.<String>path("hint")).contains("--rekey");
        assertThat(register(machine, second, "maybe").statusCode()).isEqualTo(400);
        var rekeyed = register(machine, second, "true");
        assertThat(rekeyed.statusCode()).isEqualTo(200);
        assertThat(rekeyed.<String>path("previousKeyId")).isEqualTo(SigningKeys.keyId(first.getPublic()));
        assertThat(rekeyed.<String>path("keyId")).isEqualTo(SigningKeys.keyId(second.getPublic()));
        assertThat(api.request().get("/api/v1/machines/{m}/key", machine).<String>path("keyId"))
                .isEqualTo(SigningKeys.keyId(second.getPublic()));
        // a viewer may read the key, not register one; garbage is 400 with what to send
        assertThat(api.as(GrantApi.VIEWER_TOKEN).request().get("/api/v1/machines/{m}/key", machine).statusCode()).isEqualTo(200);
        assertThat(api.as(GrantApi.VIEWER_TOKEN).request().contentType(ContentType.JSON)
                .body(Map.of("publicKey", SigningKeys.publicPem(first.getPublic())))
                .put("/api/v1/machines/{m}/key", machine).statusCode()).isEqualTo(403);
        var garbage = api.request().contentType(ContentType.JSON).body(Map.of("publicKey", "hello"))
                .put("/api/v1/machines/{m}/key", machine);
        assertThat(garbage.statusCode()).isEqualTo(400);
        assertThat(garbage.<String>path("error")).isEqualTo("invalid-key");
        assertThat(api.request().get("/api/v1/machines/{m}/key", Fleet.uniqueMachine("none")).statusCode()).isEqualTo(404);
    }

    private io.restassured.response.Response register(String machine, KeyPair key, String rekey) {
        var request = api.request().contentType(ContentType.JSON)
                .body(Map.of("publicKey", SigningKeys.publicPem(key.getPublic()), "reason", "test"));
        if (rekey != null) {
            request = request.queryParam("rekey", rekey);
        }
        return request.put("/api/v1/machines/{m}/key", machine);
    }

    private static Map<String, byte[]> signed(KeyPair key, String topic, String recordKey, byte[] value, Instant time) {
        Map<String, byte[]> headers = new LinkedHashMap<>(CloudEventHeaders.of(Topics.byName(topic), "/forger", recordKey,
                UUID.randomUUID().toString(), time));
        new RecordSigner(key.getPrivate(), key.getPublic()).sign(topic, recordKey, headers, value);
        return headers;
    }

    private void awaitGates(String machine, List<String> gates) {
        await(() -> gates.equals(api.machineGrants(machine).<List<String>>path("gates.gateId")), "gates " + gates);
    }

    private void awaitDrops(String topic, Map<String, Double> before, Map<String, Integer> wanted) {
        await(() -> wanted.entrySet().stream().allMatch(e ->
                dropped(topic).getOrDefault(e.getKey(), 0.0) >= before.getOrDefault(e.getKey(), 0.0) + e.getValue()),
                "drops " + wanted + " on " + topic + " (before " + before + ", now " + dropped(topic) + ")");
    }

    /** grants_input_dropped_total of the topic by reason. */
    private Map<String, Double> dropped(String topic) {
        String metrics = RestAssured.given().get(metricsUrl).asString();
        Map<String, Double> byReason = new LinkedHashMap<>();
        Matcher m = Pattern.compile("grants_input_dropped_total\\{([^}]*)} ([0-9.E]+)").matcher(metrics);
        while (m.find()) {
            if (m.group(1).contains("topic=\"" + topic + "\"")) {
                Matcher reason = Pattern.compile("reason=\"([^\"]+)\"").matcher(m.group(1));
                if (reason.find()) {
                    byReason.merge(reason.group(1), Double.parseDouble(m.group(2)), Double::sum);
                }
            }
        }
        return byReason;
    }

    private static void await(java.util.function.BooleanSupplier condition, String what) {
        org.awaitility.Awaitility.await(what).atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
                .until(condition::getAsBoolean);
    }
}
