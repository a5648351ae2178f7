package io.rediacc.gpu.grants.repository;

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

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.CompletableFuture;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

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

    @Test
    void aCommittedExclusiveHolderIsRefusedWithoutQueueingOnTheLock() throws Exception {
        RepoInfo owner = Fleet.repo("owner");
        RepoInfo loser = Fleet.repo("loser");
        TestMachine m = TestMachine.withRepos(api, "queue", owner, loser);
        assertThat(api.grant(m.ref(owner), "nvidia.com/gpu=0", true, "0").statusCode()).isEqualTo(202);
        try (Connection c = PostgresTestResource.current().connect()) {
            c.setAutoCommit(false);
            holdLock(c, m.name); // a change of the machine in flight, longer than the lock timeout

            Response refused = api.grant(m.ref(loser), "nvidia.com/gpu=0", true, "0");
            Response shared = api.grant(m.ref(loser), "nvidia.com/gpu=0", false, "0");
            c.rollback();

            // The lock is held until after both calls: a call that queued on it could only wait out the
            // lock timeout and answer 503 machine-busy. A 409 is the early refusal, whatever the machine's load.
            assertThat(refused.statusCode()).as(refused.asString()).isEqualTo(409);
            assertThat(refused.<String>path("error")).isEqualTo("exclusive-conflict");
            assertThat(refused.<List<String>>path("holders.repo")).containsExactly("owner");
            assertThat(shared.statusCode()).as(shared.asString()).isEqualTo(409);
            assertThat(shared.<String>path("error")).isEqualTo("exclusive-conflict");
        }
        // the early refusals are audited like the ones under the lock
        List<GrantEvent> events = TopicReader.readUntil(KafkaTestResource.broker().bootstrapServers(),
                        Topics.GRANT_EVENTS, m.name, read -> read.size() >= 3, Duration.ofSeconds(20)).stream()
                .map(r -> EventJson.fromBytes(r.value(), GrantEvent.class)).toList();
        assertThat(events).extracting(GrantEvent::type)
                .containsExactly(GrantEvent.Type.GRANTED, GrantEvent.Type.REFUSED, GrantEvent.Type.REFUSED);
        assertThat(events.get(1).reason()).startsWith("exclusive-conflict: ");
    }

    @Test
    void aChangeThatQueuedOnTheLockChecksAgainUnderIt() throws Exception {
        RepoInfo first = Fleet.repo("first");
        RepoInfo second = Fleet.repo("second");
        TestMachine m = TestMachine.withRepos(api, "recheck", first, second);
        try (Connection c = PostgresTestResource.current().connect()) {
            // another replica's exclusive grant, not yet committed: a plain read does not see it
            c.setAutoCommit(false);
            holdLock(c, m.name);
            try (PreparedStatement insert = c.prepareStatement("""
                    insert into grants (machine, repo_guid, repo_name, device, exclusive, granted_by, granted_at)
                    values (?, ?, 'first', 'nvidia.com/gpu=0', true, 'elsewhere', now())""")) {
                insert.setString(1, m.name);
                insert.setString(2, first.guid());
                insert.executeUpdate();
            }

            CompletableFuture<Response> queued = CompletableFuture.supplyAsync(
                    () -> api.grant(m.ref(second), "nvidia.com/gpu=0", false, "0"));
            await("the second grant waiting on the machine's lock").atMost(Duration.ofSeconds(30))
                    .until(() -> waitingForAdvisoryLocks(c) > 0);
            assertThat(queued).isNotDone();
            c.commit();

            Response refused = queued.get();
            assertThat(refused.statusCode()).as(refused.asString()).isEqualTo(409);
            assertThat(refused.<String>path("detail")).contains("reserved exclusively by repo first");
        }
    }

    /** Sessions of this test's database waiting for an advisory lock now. */
    private static int waitingForAdvisoryLocks(Connection c) throws Exception {
        try (PreparedStatement waiting = c.prepareStatement("""
                select count(*) from pg_locks l join pg_database d on d.oid = l.database
                where l.locktype = 'advisory' and not l.granted and d.datname = current_database()""");
             var rows = waiting.executeQuery()) {
            rows.next();
            return rows.getInt(1);
        }
    }

    private static void holdLock(Connection c, String machine) throws Exception {
        try (PreparedStatement lock = c.prepareStatement("select pg_advisory_xact_lock(hashtextextended(?, 0))")) {
            lock.setString(1, MachineLock.key(machine));
            lock.execute();
        }
    }
}
