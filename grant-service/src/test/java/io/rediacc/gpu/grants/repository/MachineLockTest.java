package io.rediacc.gpu.grants.repository;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.grants.testing.Fleet;
import io.rediacc.gpu.grants.testing.GrantApi;
import io.rediacc.gpu.grants.testing.TestMachine;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.rediacc.gpu.testsupport.PostgresTestResource;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;

import static org.assertj.core.api.Assertions.assertThat;

/** Every change of a machine takes the machine's advisory lock, and waits for it only as long as configured. */
@QuarkusTest
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class MachineLockTest {

    private final GrantApi api = new GrantApi();

    @Test
    void changeWaitsForTheMachineLockThenAnswers503MachineBusy() throws Exception {
        RepoInfo train = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(api, "locked", train);
        TestMachine other = TestMachine.withRepos(api, "free", train);
        try (Connection c = PostgresTestResource.current().connect()) {
            // another replica's transaction holding the lock, as the service keys it
            c.setAutoCommit(false);
            try (PreparedStatement lock = c.prepareStatement("select pg_advisory_xact_lock(hashtextextended(?, 0))")) {
                lock.setString(1, MachineLock.key(m.name));
                lock.execute();
            }

            Instant before = Instant.now();
            Response busy = api.grant(m.ref(train), "nvidia.com/gpu=0", false, "0");
            Duration waited = Duration.between(before, Instant.now());
            // the lock is per machine: another machine is not held up
            Response elsewhere = api.grant(other.ref(train), "nvidia.com/gpu=0", false, "0");
            c.rollback();

            assertThat(busy.statusCode()).as(busy.asString()).isEqualTo(503);
            assertThat(busy.<String>path("error")).isEqualTo("machine-busy");
            assertThat(busy.header("Retry-After")).isEqualTo("1");
            assertThat(waited).isGreaterThanOrEqualTo(Duration.ofSeconds(2)); // grants.lock-timeout in tests
            assertThat(elsewhere.statusCode()).isEqualTo(202);
        }
        assertThat(api.grant(m.ref(train), "nvidia.com/gpu=0", false, "0").statusCode()).isEqualTo(202);
    }
}
