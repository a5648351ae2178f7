package io.rediacc.gpu.grants.rest;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
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
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.stream.Collectors;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * Issue 31: a removal is final under a race. Three clients grant on a machine while it is removed with
 * {@code revokeGrants=true} and its node-agent keeps publishing signed inventories. Every grant is either
 * refused with 409 or among those the removal revoked; none answered after the removal is accepted; once the
 * removal answered, no grant survives in the database nor in the machine's newest snapshot on the topic.
 */
@QuarkusTest
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class RemovalRaceTest {

    private static final int CLIENTS = 3;
    private static final int REPOS_PER_CLIENT = 15;
    private static final String DEVICE = "nvidia.com/gpu=0";

    private final GrantApi api = new GrantApi();

    @jakarta.inject.Inject
    io.micrometer.core.instrument.MeterRegistry metrics;

    /** One grant's answer: when it was sent and answered (nanoTime), relative to the removal's answer. */
    private record Answer(String repo, int status, String error, long sentAt, long answeredAt) {
    }

    @Test
    void grantsRacingARemovalAreEitherRefusedOrRevokedByItAndNoneSurvives() throws Exception {
        List<RepoInfo> repos = new ArrayList<>();
        for (int i = 0; i < CLIENTS * REPOS_PER_CLIENT; i++) {
            repos.add(Fleet.repo("race" + i));
        }
        TestMachine m = TestMachine.withRepos(api, "race", repos.toArray(RepoInfo[]::new));
        api.awaitRepo(m.ref(repos.get(repos.size() - 1)), repos.get(repos.size() - 1).guid());

        ConcurrentLinkedQueue<Answer> answers = new ConcurrentLinkedQueue<>();
        AtomicLong removalAnsweredAt = new AtomicLong(Long.MAX_VALUE);
        AtomicBoolean stop = new AtomicBoolean();
        java.util.concurrent.Semaphore answered = new java.util.concurrent.Semaphore(0);
        CountDownLatch someGranted = new CountDownLatch(CLIENTS);
        ExecutorService pool = Executors.newFixedThreadPool(CLIENTS + 1);
        List<Future<?>> running = new ArrayList<>();
        for (int c = 0; c < CLIENTS; c++) {
            List<RepoInfo> mine = repos.subList(c * REPOS_PER_CLIENT, (c + 1) * REPOS_PER_CLIENT);
            running.add(pool.submit(() -> {
                boolean counted = false;
                for (RepoInfo repo : mine) {
                    long sent = System.nanoTime();
                    Response r = api.grant(m.ref(repo), DEVICE, false, "0");
                    answers.add(new Answer(repo.name(), r.statusCode(), r.statusCode() >= 400 ? r.path("error") : null,
                            sent, System.nanoTime()));
                    answered.release();
                    if (!counted && r.statusCode() < 300) {
                        someGranted.countDown();
                        counted = true;
                    }
                }
                someGranted.countDown(); // a client that never got a grant does not hold the removal back
            }));
        }
        // the machine's node-agent keeps publishing what it sees, signed now, across the removal too: one
        // inventory per grant answered, so its records interleave with the grants
        running.add(pool.submit(() -> {
            while (!stop.get()) {
                if (answered.tryAcquire(100, TimeUnit.MILLISECONDS)) {
                    TestMachine.fleet().publishInventory(m.inventory());
                }
            }
            return null;
        }));

        assertThat(someGranted.await(60, TimeUnit.SECONDS)).isTrue();
        Response removed = api.request().queryParam("revokeGrants", true).delete("/api/v1/machines/{m}", m.name);
        removalAnsweredAt.set(System.nanoTime());
        assertThat(removed.statusCode()).as(removed.asString()).isEqualTo(200);
        Set<String> revoked = removed.<List<Map<String, Object>>>path("revoked").stream()
                .map(g -> g.get("repoName") + " " + g.get("device")).collect(Collectors.toSet());

        for (int i = 0; i < CLIENTS; i++) {
            running.get(i).get(120, TimeUnit.SECONDS);
        }
        stop.set(true);
        running.get(CLIENTS).get(30, TimeUnit.SECONDS);
        pool.shutdown();

        // every inventory the agent published has been read once one published after them has been dropped
        double unregistered = dropped(Topics.INVENTORY, "unregistered-machine");
        TestMachine.fleet().publishInventory(m.inventory());
        await().atMost(Duration.ofSeconds(30)).until(() -> dropped(Topics.INVENTORY, "unregistered-machine") > unregistered);

        List<Answer> all = new ArrayList<>(answers);
        assertThat(all).hasSize(CLIENTS * REPOS_PER_CLIENT);
        for (Answer a : all) {
            if (a.status() < 300) {
                assertThat(revoked).as("granted %s answered %s; the removal revoked %s", a.repo(), a.status(), revoked)
                        .contains(a.repo() + " " + DEVICE);
            } else {
                assertThat(a.status()).as("%s: %s", a.repo(), a.error()).isEqualTo(409);
            }
            if (a.sentAt() > removalAnsweredAt.get()) {
                assertThat(a.status()).as("a grant sent after the removal answered: %s", a.repo()).isEqualTo(409);
            }
        }
        assertThat(all).as("the race had grants on both sides of the removal")
                .anyMatch(a -> a.status() < 300).anyMatch(a -> a.status() == 409);

        Response after = api.machineGrants(m.name);
        assertThat(after.<List<?>>path("grants")).as("grants in the database after the removal").isEmpty();
        long version = after.<Number>path("version").longValue();
        List<ConsumerRecord<String, byte[]>> snapshots = TopicReader.readUntil(KafkaTestResource.broker().bootstrapServers(),
                Topics.GRANTS, m.name, read -> !read.isEmpty() && read.get(read.size() - 1).value() != null
                        && EventJson.fromBytes(read.get(read.size() - 1).value(), GrantSnapshot.class).version() >= version,
                Duration.ofSeconds(30));
        GrantSnapshot newest = EventJson.fromBytes(snapshots.get(snapshots.size() - 1).value(), GrantSnapshot.class);
        assertThat(newest.version()).isEqualTo(version);
        assertThat(newest.grants()).as("grants in the newest snapshot after the removal").isEmpty();
        assertThat(api.grant(m.ref(repos.get(0)), DEVICE, false, "0").statusCode()).isEqualTo(409);
    }

    private double dropped(String topic, String reason) {
        var c = metrics.find("grants.input.dropped").tag("topic", topic).tag("reason", reason).counter();
        return c == null ? 0 : c.count();
    }
}
