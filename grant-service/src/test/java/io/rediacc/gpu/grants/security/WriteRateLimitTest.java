package io.rediacc.gpu.grants.security;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.grants.testing.Fleet;
import io.rediacc.gpu.grants.testing.GrantApi;
import io.rediacc.gpu.grants.testing.TestMachine;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.rediacc.gpu.testsupport.PostgresTestResource;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/** Each principal's writes are rate-limited on their own (api.rate-limit.*); reads are not. */
@QuarkusTest
@TestProfile(WriteRateLimitTest.TightLimit.class)
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class WriteRateLimitTest {

    public static class TightLimit implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("api.rate-limit.burst", "3", "api.rate-limit.writes", "1", "api.rate-limit.period", "1h");
        }
    }

    @Test
    void aPrincipalOverItsWriteLimitGets429WithRetryAfterAndNothingChanges() {
        GrantApi alice = new GrantApi().as(GrantApi.ALICE_TOKEN);
        GrantApi bob = new GrantApi().as(GrantApi.BOB_TOKEN);
        RepoInfo train = Fleet.repo("train");
        // the machine (its key registered) by the default operator, whose writes do not count against alice's limit
        TestMachine m = TestMachine.withRepos(new GrantApi(), "limit", train);

        for (int i = 0; i < 3; i++) {
            assertThat(alice.grant(m.ref(train), "nvidia.com/gpu=0", false, "0").statusCode()).isIn(200, 201, 202);
        }
        Response limited = alice.grant(m.ref(train), "nvidia.com/gpu=1", false, "0");

        assertThat(limited.statusCode()).as(limited.asString()).isEqualTo(429);
        assertThat(limited.contentType()).startsWith("application/problem+json");
        assertThat(limited.<String>path("error")).isEqualTo("rate-limited");
        assertThat(limited.<String>path("detail")).contains("alice", "api.rate-limit");
        assertThat(Long.parseLong(limited.header("Retry-After"))).isBetween(1L, 3600L);
        assertThat(limited.<Integer>path("retryAfterSeconds")).isEqualTo(Integer.parseInt(limited.header("Retry-After")));
        // nothing was granted, reads go on, and another principal's bucket is its own
        assertThat(alice.repoGrants(m.ref(train)).<java.util.List<String>>path("grants.device")).containsExactly("nvidia.com/gpu=0");
        assertThat(alice.machineGrants(m.name).statusCode()).isEqualTo(200);
        assertThat(bob.grant(m.ref(train), "nvidia.com/gpu=1", false, "0").statusCode()).isIn(200, 201, 202);
    }

    @Test
    void aCallerWithoutATokenIs401NotRateLimited() {
        GrantApi nobody = new GrantApi(null, null);
        for (int i = 0; i < 5; i++) {
            WhoMayDoWhatTest.assertUnauthorized(nobody.grant("train@m1", "nvidia.com/gpu=0", false, "0"));
        }
    }
}
