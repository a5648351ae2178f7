package io.rediacc.gpu.grants.rest;

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

import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A repo gone from its machine keeps its grants, listed as repo gone and revocable by name (its last known GUID). */
@QuarkusTest
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class RepoGoneTest {

    private final GrantApi api = new GrantApi();

    @Test
    void aGoneReposGrantsAreListedAsGoneAndRevocableByName() throws InterruptedException {
        RepoInfo doomed = Fleet.repo("doomed");
        RepoInfo stays = Fleet.repo("stays");
        TestMachine m = TestMachine.withRepos(api, "gone", doomed, stays);
        api.grant(m.ref(doomed), "nvidia.com/gpu=0", false, "0");
        api.grant(m.ref(doomed), "nvidia.com/gpu=1", false, "0");

        m.replaceRepos(api, stays);
        Response listed = awaitGone(m.ref(doomed));

        assertThat(listed.<String>path("repoGuid")).isEqualTo(doomed.guid());
        assertThat(listed.<List<String>>path("grants.device")).containsExactly("nvidia.com/gpu=0", "nvidia.com/gpu=1");
        Response revoked = api.revoke(m.ref(doomed), "nvidia.com/gpu=0", "0");
        assertThat(revoked.statusCode()).isEqualTo(202);
        assertThat(revoked.<String>path("repoGuid")).isEqualTo(doomed.guid());
        assertThat(api.revoke(m.ref(doomed), "nvidia.com/gpu=0", "0").statusCode()).isEqualTo(404);
        assertThat(api.revoke(m.ref(doomed), "nvidia.com/gpu=1", "0").statusCode()).isEqualTo(202);
        Response none = api.repoGrants(m.ref(doomed));
        assertThat(none.statusCode()).isEqualTo(404);
        assertThat(none.<String>path("error")).isEqualTo("unknown-repo");
    }

    private Response awaitGone(String ref) throws InterruptedException {
        return await(ref + " listed as gone").atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(50))
                .until(() -> api.repoGrants(ref), r -> r.statusCode() == 200 && Boolean.TRUE.equals(r.path("repoGone")));
    }
}
