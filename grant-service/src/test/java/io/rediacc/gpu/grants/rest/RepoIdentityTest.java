package io.rediacc.gpu.grants.rest;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.grants.testing.Fleet;
import io.rediacc.gpu.grants.testing.GrantApi;
import io.rediacc.gpu.grants.testing.TestMachine;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.rediacc.gpu.testsupport.PostgresTestResource;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;
import java.util.UUID;

import static org.assertj.core.api.Assertions.assertThat;

/** Rule 2: a grant belongs to a repo's GUID, never to a name or a parent a copy could inherit. */
@QuarkusTest
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class RepoIdentityTest {

    private final GrantApi api = new GrantApi();

    @Test
    void repoMustExistOnTheMachine() {
        RepoInfo train = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(api, "exists", train);

        Response response = api.grant("ghost@" + m.name, "nvidia.com/gpu=0", false, "0");

        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(response.<String>path("error")).isEqualTo("unknown-repo");
        assertThat(response.<String>path("detail")).isEqualTo("repo ghost is not on machine " + m.name + " (its repos: train)");
    }

    @Test
    void grantIsRecordedUnderTheReposGuid() {
        RepoInfo train = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(api, "guid", train);

        Response granted = api.grant(m.ref(train), "nvidia.com/gpu=0", false, "0");

        assertThat(granted.statusCode()).isEqualTo(202);
        assertThat(granted.<String>path("repoGuid")).isEqualTo(train.guid());
        assertThat(api.machineGrants(m.name).<List<String>>path("grants.repoGuid")).containsExactly(train.guid());
    }

    @Test
    void forkStartsWithoutItsParentsGrants() {
        RepoInfo parent = Fleet.repo("train");
        RepoInfo fork = Fleet.forkOf("train-fork", parent);
        TestMachine m = TestMachine.withRepos(api, "fork", parent, fork);
        assertThat(api.grant(m.ref(parent), "nvidia.com/gpu=0", false, "0").statusCode()).isEqualTo(202);

        Response forkGrants = api.repoGrants(m.ref(fork));

        assertThat(forkGrants.statusCode()).isEqualTo(200);
        assertThat(forkGrants.<String>path("repoGuid")).isEqualTo(fork.guid());
        assertThat(forkGrants.<List<?>>path("grants")).isEmpty();
        assertThat(api.repoGrants(m.ref(parent)).<List<String>>path("grants.device")).containsExactly("nvidia.com/gpu=0");
    }

    @Test
    void repoRecreatedUnderTheSameNameHasNoGrants() {
        RepoInfo original = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(api, "recreate", original);
        assertThat(api.grant(m.ref(original), "nvidia.com/gpu=1", true, "0").statusCode()).isEqualTo(202);

        RepoInfo recreated = new RepoInfo("train", UUID.randomUUID().toString(), null);
        m.replaceRepos(api, recreated);
        api.awaitRepo(m.ref(recreated), recreated.guid());

        assertThat(api.repoGrants(m.ref(recreated)).<List<?>>path("grants")).isEmpty();
        // the old identity keeps its reservation until revoked: the new repo cannot take the name over
        Response takeOver = api.grant(m.ref(recreated), "nvidia.com/gpu=1", false, "0");
        assertThat(takeOver.statusCode()).isEqualTo(409);
        assertThat(takeOver.<List<String>>path("holders.repoGuid")).containsExactly(original.guid());
    }

    @Test
    void repoNameAloneResolvesWhenUniqueInTheFleet() {
        String unique = "solo-" + UUID.randomUUID().toString().substring(0, 8);
        RepoInfo solo = Fleet.repo(unique);
        TestMachine m = TestMachine.withRepos(api, "solo", solo);

        Response granted = api.grant(unique, "nvidia.com/gpu=0", false, "0");

        assertThat(granted.statusCode()).isEqualTo(202);
        assertThat(granted.<String>path("machine")).isEqualTo(m.name);
        assertThat(api.repoGrants(unique).<String>path("machine")).isEqualTo(m.name);
    }

    @Test
    void ambiguousRepoNameAsksForTheMachine() {
        String shared = "twin-" + UUID.randomUUID().toString().substring(0, 8);
        TestMachine a = TestMachine.withRepos(api, "twin-a", Fleet.repo(shared));
        TestMachine b = TestMachine.withRepos(api, "twin-b", Fleet.repo(shared));

        Response response = api.grant(shared, "nvidia.com/gpu=0", false, "0");

        assertThat(response.statusCode()).isEqualTo(409);
        assertThat(response.<String>path("error")).isEqualTo("ambiguous-repo");
        assertThat(response.<List<String>>path("machines")).containsExactlyInAnyOrder(a.name, b.name);
        assertThat(response.<String>path("hint")).contains(shared + "@" + a.name);
        // naming the machine in the body settles it
        Response named = api.grant(shared, Map.of("machine", b.name, "device", "nvidia.com/gpu=0"), "0");
        assertThat(named.statusCode()).isEqualTo(202);
        assertThat(named.<String>path("machine")).isEqualTo(b.name);
    }

    @Test
    void machineInPathAndBodyMustAgree() {
        RepoInfo train = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(api, "agree", train);

        Response response = api.request().contentType(ContentType.JSON)
                .body(Map.of("machine", "other-machine", "device", "nvidia.com/gpu=0"))
                .post("/api/v1/repos/{repo}/grants", m.ref(train));

        assertThat(response.statusCode()).isEqualTo(400);
        assertThat(response.<String>path("error")).isEqualTo("machine-mismatch");
    }
}
