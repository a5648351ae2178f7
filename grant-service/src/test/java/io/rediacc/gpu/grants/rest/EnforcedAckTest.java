package io.rediacc.gpu.grants.rest;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.grants.testing.FakeGate;
import io.rediacc.gpu.grants.testing.Fleet;
import io.rediacc.gpu.grants.testing.GrantApi;
import io.rediacc.gpu.grants.testing.TestMachine;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.rediacc.gpu.testsupport.PostgresTestResource;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Rule 7: a change answers once every live gate of the machine applies it, or says it is not enforced yet. */
@QuarkusTest
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class EnforcedAckTest {

    private final GrantApi api = new GrantApi();

    private static String kafka() {
        return KafkaTestResource.broker().bootstrapServers();
    }

    @Test
    void grantAnswers201EnforcedOnceEveryLiveGateAppliedIt() {
        RepoInfo train = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(api, "enforced", train);
        try (FakeGate a = FakeGate.start(kafka(), m.name, "gate-a"); FakeGate b = FakeGate.start(kafka(), m.name, "gate-b")) {
            awaitLiveGates(m.name, 2);

            Response granted = api.grant(m.ref(train), "nvidia.com/gpu=0", false, "10s");

            assertThat(granted.statusCode()).isEqualTo(201);
            assertThat(granted.<Boolean>path("enforced")).isTrue();
            assertThat(granted.<String>path("enforcement")).contains("every live gate of " + m.name + " (gate-a, gate-b)");
            assertThat(granted.<List<?>>path("laggingGates")).isEmpty();
            assertThat(a.appliedVersion()).isEqualTo(1);
            assertThat(b.appliedVersion()).isEqualTo(1);
        }
    }

    @Test
    void revokeWaitsForTheGatesToo() {
        RepoInfo train = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(api, "revoke-ack", train);
        try (FakeGate gate = FakeGate.start(kafka(), m.name, "gate")) {
            awaitLiveGates(m.name, 1);
            assertThat(api.grant(m.ref(train), "nvidia.com/gpu=1", true, "10s").statusCode()).isEqualTo(201);

            Response revoked = api.revoke(m.ref(train), "nvidia.com/gpu=1", "10s");

            assertThat(revoked.statusCode()).isEqualTo(200);
            assertThat(revoked.<Boolean>path("enforced")).isTrue();
            assertThat(gate.appliedVersion()).isEqualTo(2);
            Response machine = api.machineGrants(m.name);
            assertThat(machine.<List<Integer>>path("gates.appliedVersion")).containsExactly(2);
            assertThat(machine.<List<Boolean>>path("gates.live")).containsExactly(true);
            assertThat(machine.<List<?>>path("gates[0].grants")).isEmpty();
            assertThat(machine.<Integer>path("gates[0].grantCount")).isZero();
            assertThat(machine.<Boolean>path("gates[0].grantsListed")).isTrue();
            assertThat(machine.<String>path("gates[0].grantsDigest")).hasSize(64);
        }
    }

    @Test
    void laggingGateGives202NamingIt() {
        RepoInfo train = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(api, "lagging", train);
        TestMachine.fleet().publishGateStatus(m.name, "stuck-gate", 0, List.of());
        awaitLiveGates(m.name, 1);

        Instant before = Instant.now();
        Response granted = api.grant(m.ref(train), "nvidia.com/gpu=0", false, "400ms");

        assertThat(Duration.between(before, Instant.now())).isGreaterThanOrEqualTo(Duration.ofMillis(400));
        assertThat(granted.statusCode()).isEqualTo(202);
        assertThat(granted.<Boolean>path("enforced")).isFalse();
        assertThat(granted.<List<String>>path("laggingGates")).containsExactly("stuck-gate");
        assertThat(granted.<String>path("enforcement"))
                .isEqualTo("recorded at version 1 but not yet enforced after waiting 400ms: gate stuck-gate is at "
                        + "version 0; it applies the change when it catches up");
        // recorded all the same
        assertThat(api.repoGrants(m.ref(train)).<List<String>>path("grants.device")).containsExactly("nvidia.com/gpu=0");
    }

    @Test
    void machineWithoutLiveGateAnswersNotEnforcedWithTheReason() {
        RepoInfo train = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(api, "gateless", train);

        Instant before = Instant.now();
        Response granted = api.grant(m.ref(train), "nvidia.com/gpu=0", false, "5s");

        assertThat(Duration.between(before, Instant.now())).isLessThan(Duration.ofSeconds(4)); // nothing to wait for
        assertThat(granted.statusCode()).isEqualTo(202);
        assertThat(granted.<Boolean>path("enforced")).isFalse();
        assertThat(granted.<String>path("enforcement")).contains("machine " + m.name + " has no live gate");
    }

    @Test
    void gateSilentForThreeHeartbeatsIsNotLive() {
        RepoInfo train = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(api, "silent-gate", train);
        // heartbeat 10 s, last status 31 s ago
        TestMachine.fleet().publishGateStatus(m.name, "gone", 5, List.of(), Instant.now().minusSeconds(31));
        awaitGates(m.name, 1);

        Response granted = api.grant(m.ref(train), "nvidia.com/gpu=0", false, "5s");

        assertThat(granted.statusCode()).isEqualTo(202);
        assertThat(granted.<String>path("enforcement")).contains("has no live gate");
        assertThat(api.machineGrants(m.name).<List<Boolean>>path("gates.live")).containsExactly(false);
    }

    @Test
    void waitZeroAnswersWithoutWaiting() {
        RepoInfo train = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(api, "nowait", train);
        TestMachine.fleet().publishGateStatus(m.name, "slow", 0, List.of());
        awaitLiveGates(m.name, 1);

        Response granted = api.grant(m.ref(train), "nvidia.com/gpu=0", false, "0");

        assertThat(granted.statusCode()).isEqualTo(202);
        assertThat(granted.<String>path("enforcement")).contains("without waiting (wait=0)");
        assertThat(granted.<List<String>>path("laggingGates")).containsExactly("slow");
    }

    private void awaitLiveGates(String machine, int count) {
        awaitUntil(() -> api.machineGrants(machine).<List<Boolean>>path("gates.live").stream()
                .filter(Boolean::booleanValue).count() == count, machine + " to have " + count + " live gates");
    }

    private void awaitGates(String machine, int count) {
        awaitUntil(() -> api.machineGrants(machine).<List<?>>path("gates").size() == count,
                machine + " to have " + count + " gates");
    }

    private static void awaitUntil(java.util.function.BooleanSupplier condition, String what) {
        org.awaitility.Awaitility.await(what).atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                .until(condition::getAsBoolean);
    }
}
