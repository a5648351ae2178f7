package io.rediacc.gpu.grants.rest;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.GrantEvent;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.grants.service.ExpiryReaper;
import io.rediacc.gpu.grants.service.GrantService;
import io.rediacc.gpu.grants.testing.Fleet;
import io.rediacc.gpu.grants.testing.GrantApi;
import io.rediacc.gpu.grants.testing.TestMachine;
import io.rediacc.gpu.grants.testing.TopicReader;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.rediacc.gpu.testsupport.PostgresTestResource;
import io.restassured.response.Response;
import io.rediacc.gpu.grants.testing.MovableClock;
import jakarta.inject.Inject;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** Expiry: grant-service revokes an expired grant itself, audited as expired and published like any revoke. */
@QuarkusTest
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class ExpiryTest {

    private final GrantApi api = new GrantApi();

    @Inject
    MovableClock clock;
    @Inject
    ExpiryReaper reaper;

    @AfterEach
    void timeBack() {
        clock.reset();
    }

    @Test
    void anExpiredGrantIsRevokedAuditedAndPublished() {
        RepoInfo a = Fleet.repo("a");
        TestMachine m = TestMachine.withRepos(api, "expiry", a);
        api.grant(m.ref(a), "nvidia.com/gpu=1", false, "0");
        Response granted = api.grant(m.ref(a), Map.of("device", "nvidia.com/gpu=0", "expiresIn", "1h"), "0");
        assertThat(granted.statusCode()).isEqualTo(202);
        Instant expiresAt = Instant.parse(granted.path("expiresAt"));
        assertThat(expiresAt).isBetween(Instant.now().plus(Duration.ofMinutes(59)), Instant.now().plus(Duration.ofMinutes(61)));
        assertThat(api.repoGrants(m.ref(a)).<String>path("grants.find { it.device == 'nvidia.com/gpu=0' }.expiresAt"))
                .isEqualTo(granted.path("expiresAt"));
        assertThat(TopicReader.readUntil(KafkaTestResource.broker().bootstrapServers(), Topics.GRANT_EVENTS, m.name,
                read -> read.size() >= 2, Duration.ofSeconds(20))).as("granted twice, not expired yet").hasSize(2);

        clock.advance(Duration.ofHours(1).plusSeconds(1)); // the reaper (every 300 ms in tests) now finds it due

        List<GrantEvent> events = TopicReader.readUntil(KafkaTestResource.broker().bootstrapServers(),
                        Topics.GRANT_EVENTS, m.name, read -> read.size() >= 3, Duration.ofSeconds(20)).stream()
                .map(r -> EventJson.fromBytes(r.value(), GrantEvent.class)).toList();

        GrantEvent expired = events.get(2);
        assertThat(expired.type()).isEqualTo(GrantEvent.Type.EXPIRED);
        assertThat(expired.device()).isEqualTo("nvidia.com/gpu=0");
        assertThat(expired.actor()).isEqualTo(GrantService.EXPIRY_ACTOR);
        assertThat(expired.version()).isEqualTo(3L);
        assertThat(expired.at()).isAfterOrEqualTo(expiresAt);
        assertThat(api.repoGrants(m.ref(a)).<List<String>>path("grants.device")).containsExactly("nvidia.com/gpu=1");
        GrantSnapshot last = TopicReader.readUntil(KafkaTestResource.broker().bootstrapServers(), Topics.GRANTS, m.name,
                        read -> read.size() >= 3, Duration.ofSeconds(20)).stream()
                .map(r -> EventJson.fromBytes(r.value(), GrantSnapshot.class)).reduce((x, y) -> y).orElseThrow();
        assertThat(last.version()).isEqualTo(3L);
        assertThat(last.grants()).extracting(g -> g.device()).containsExactly("nvidia.com/gpu=1");
        assertThat(api.request().queryParam("machine", m.name).queryParam("device", "nvidia.com/gpu=0")
                .get("/api/v1/audit").<List<String>>path("entries.event")).containsExactly("granted", "expired");
    }

    @Test
    void withNoGrantThatExpiresTheReaperReadsNothingUntilAChangeAndThenWatchesTheNewExpiry() {
        // 2 s without a look and with none set: a reaper on a fixed beat (300 ms in tests) never has one. A look that
        // a change elsewhere causes (another class's machines read from the shared broker) starts the 2 s again.
        AtomicLong seen = new AtomicLong(-1);
        await("2 s in a row without a look while no grant expires (every other test leaves none)")
                .during(Duration.ofSeconds(2)).atMost(Duration.ofSeconds(30))
                .until(() -> seen.getAndSet(reaper.looks()) == reaper.looks() && !reaper.lookSet());
        long idle = reaper.looks();

        RepoInfo a = Fleet.repo("a");
        TestMachine m = TestMachine.withRepos(api, "quiet", a);
        api.grant(m.ref(a), "nvidia.com/gpu=0", false, "0");
        await("a change makes it look once: the change may have brought an expiry").atMost(Duration.ofSeconds(10))
                .until(() -> reaper.looks() > idle && !reaper.lookSet());

        long beforeExpiring = reaper.looks();
        api.grant(m.ref(a), Map.of("device", "nvidia.com/gpu=1", "expiresIn", "1h"), "0");
        await("a grant that expires keeps a look set (at most expiry-interval away)").atMost(Duration.ofSeconds(10))
                .until(() -> reaper.looks() > beforeExpiring + 1 && reaper.lookSet());

        api.revoke(m.ref(a), "nvidia.com/gpu=1", "0");
        await("its revoke leaves none set again").atMost(Duration.ofSeconds(10)).until(() -> !reaper.lookSet());
    }

    @Test
    void grantingAgainWithALaterExpiryMovesItAndWithoutOneKeepsTheGrant() {
        RepoInfo a = Fleet.repo("a");
        TestMachine m = TestMachine.withRepos(api, "extend", a);
        api.grant(m.ref(a), Map.of("device", "nvidia.com/gpu=0", "expiresIn", "1h"), "0");
        Instant until = Instant.now().plus(Duration.ofDays(2)).truncatedTo(java.time.temporal.ChronoUnit.SECONDS);

        Response moved = api.grant(m.ref(a), Map.of("device", "nvidia.com/gpu=0", "expiresAt", until.toString()), "0");
        Response same = api.grant(m.ref(a), Map.of("device", "nvidia.com/gpu=0", "expiresAt", until.toString()), "0");
        Response forever = api.grant(m.ref(a), "nvidia.com/gpu=0", false, "0");

        assertThat(moved.statusCode()).isEqualTo(202);
        assertThat(moved.<Integer>path("version")).isEqualTo(2);
        assertThat(Instant.parse(moved.path("expiresAt"))).isEqualTo(until);
        assertThat(same.statusCode()).isEqualTo(200);
        assertThat(same.<Integer>path("version")).isEqualTo(2);
        assertThat(forever.<Integer>path("version")).isEqualTo(3);
        assertThat(api.repoGrants(m.ref(a)).<Object>path("grants[0].expiresAt")).isNull();
    }

    @Test
    void anExpiryThatIsNotADurationOrNotInTheFutureIsRefused() {
        RepoInfo a = Fleet.repo("a");
        TestMachine m = TestMachine.withRepos(api, "badexp", a);

        for (Map<String, Object> body : List.<Map<String, Object>>of(
                Map.of("device", "nvidia.com/gpu=0", "expiresIn", "8x"),
                Map.of("device", "nvidia.com/gpu=0", "expiresIn", "0s"),
                Map.of("device", "nvidia.com/gpu=0", "expiresIn", "400d"),
                Map.of("device", "nvidia.com/gpu=0", "expiresAt", "2020-01-01T00:00:00Z"),
                Map.of("device", "nvidia.com/gpu=0", "expiresIn", "1h", "expiresAt", "2099-01-01T00:00:00Z"))) {
            Response r = api.grant(m.ref(a), body, "0");
            assertThat(r.statusCode()).as(body.toString()).isEqualTo(400);
            assertThat(r.<String>path("error")).as(body.toString()).isEqualTo("invalid-expiry");
        }
        assertThat(api.repoGrants(m.ref(a)).<List<?>>path("grants")).isEmpty();
    }
}
