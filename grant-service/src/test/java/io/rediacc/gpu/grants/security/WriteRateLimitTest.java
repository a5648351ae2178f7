package io.rediacc.gpu.grants.security;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.grants.testing.Fleet;
import io.rediacc.gpu.grants.testing.GrantApi;
import io.rediacc.gpu.grants.testing.MovableClock;
import io.rediacc.gpu.grants.testing.TestMachine;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.rediacc.gpu.testsupport.PostgresTestResource;
import io.restassured.response.Response;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Each principal's writes are rate-limited on their own (api.rate-limit.*); reads are not. It runs on the
 * application the other tests share: the test profile gives the principal "limited" a tight limit of its own
 * (api.rate-limit.principals.limited: 3 at once, 1 per hour) and everyone else a generous default, so this
 * test is the only one that writes as "limited".
 */
@QuarkusTest
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class WriteRateLimitTest {

    @Inject
    MovableClock clock;

    @Test
    void aPrincipalOverItsWriteLimitGets429WithRetryAfterAndNothingChanges() {
        GrantApi limited = new GrantApi().as(GrantApi.LIMITED_TOKEN);
        GrantApi bob = new GrantApi().as(GrantApi.BOB_TOKEN);
        RepoInfo train = Fleet.repo("train");
        // the machine (its key registered) by the default operator, whose writes do not count against limited's
        TestMachine m = TestMachine.withRepos(new GrantApi(), "limit", train);

        for (int i = 0; i < 3; i++) {
            assertThat(limited.grant(m.ref(train), "nvidia.com/gpu=0", false, "0").statusCode()).isIn(200, 201, 202);
        }
        Response refused = limited.grant(m.ref(train), "nvidia.com/gpu=1", false, "0");

        assertThat(refused.statusCode()).as(refused.asString()).isEqualTo(429);
        assertThat(refused.contentType()).startsWith("application/problem+json");
        assertThat(refused.<String>path("error")).isEqualTo("rate-limited");
        // the limit named is the principal's own, not the default's
        assertThat(refused.<String>path("detail")).contains("limited", "api.rate-limit", "3 at once, 1 per PT1H");
        assertThat(Long.parseLong(refused.header("Retry-After"))).isBetween(1L, 3600L);
        assertThat(refused.<Integer>path("retryAfterSeconds")).isEqualTo(Integer.parseInt(refused.header("Retry-After")));
        // nothing was granted, reads go on, and another principal's bucket is its own
        assertThat(limited.repoGrants(m.ref(train)).<List<String>>path("grants.device")).containsExactly("nvidia.com/gpu=0");
        assertThat(limited.machineGrants(m.name).statusCode()).isEqualTo(200);
        assertThat(bob.grant(m.ref(train), "nvidia.com/gpu=1", false, "0").statusCode()).isIn(200, 201, 202);
        // still refused: the other principal's write gave limited nothing back
        assertThat(limited.revoke(m.ref(train), "nvidia.com/gpu=0", "0").statusCode()).isEqualTo(429);

        // an hour later (the services' clock moved, not waited for) the bucket holds one write again, and only one
        try {
            clock.advance(Duration.ofMinutes(59));
            assertThat(limited.revoke(m.ref(train), "nvidia.com/gpu=0", "0").statusCode()).as("59 min: not refilled yet")
                    .isEqualTo(429);
            clock.advance(Duration.ofMinutes(1));
            Response afterAnHour = limited.revoke(m.ref(train), "nvidia.com/gpu=0", "0");
            assertThat(afterAnHour.statusCode()).as(afterAnHour.asString()).isIn(200, 202, 204);
            assertThat(limited.grant(m.ref(train), "nvidia.com/gpu=2", false, "0").statusCode()).isEqualTo(429);
        } finally {
            clock.reset();
        }
    }

    @Test
    void aCallerWithoutATokenIs401NotRateLimited() {
        GrantApi nobody = new GrantApi(null, null);
        for (int i = 0; i < 5; i++) {
            WhoMayDoWhatTest.assertUnauthorized(nobody.grant("train@m1", "nvidia.com/gpu=0", false, "0"));
        }
    }
}
