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

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Rule 3: one grant names one device; repeats are idempotent; revoking what is not granted is 404. */
@QuarkusTest
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class GrantSemanticsTest {

    private final GrantApi api = new GrantApi();

    @Test
    void grantOfAllDoesNotAdmitCardZero() {
        RepoInfo train = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(api, "all", train);

        assertThat(api.grant(m.ref(train), "nvidia.com/gpu=all", false, "0").statusCode()).isEqualTo(202);

        assertThat(api.repoGrants(m.ref(train)).<List<String>>path("grants.device")).containsExactly("nvidia.com/gpu=all");
        Response revokeZero = api.revoke(m.ref(train), "nvidia.com/gpu=0", "0");
        assertThat(revokeZero.statusCode()).isEqualTo(404);
    }

    @Test
    void grantingTheSameThingTwiceIsIdempotent() {
        RepoInfo train = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(api, "twice", train);

        Response first = api.grant(m.ref(train), "nvidia.com/gpu=0", false, "0");
        Response second = api.grant(m.ref(train), "nvidia.com/gpu=0", false, "0");

        assertThat(first.statusCode()).isEqualTo(202);
        assertThat(first.<Boolean>path("created")).isTrue();
        assertThat(second.statusCode()).isEqualTo(200);
        assertThat(second.<Boolean>path("created")).isFalse();
        assertThat(second.<Integer>path("version")).isEqualTo(first.<Integer>path("version")).isEqualTo(1);
        assertThat(api.machineGrants(m.name).<Integer>path("version")).isEqualTo(1);
        assertThat(api.repoGrants(m.ref(train)).<List<?>>path("grants")).hasSize(1);
    }

    @Test
    void revokingWhatIsNotGrantedIs404NamingIt() {
        RepoInfo train = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(api, "nogrant", train);
        api.grant(m.ref(train), "nvidia.com/gpu=1", false, "0");

        Response response = api.revoke(m.ref(train), "nvidia.com/gpu=0", "0");

        assertThat(response.statusCode()).isEqualTo(404);
        assertThat(response.<String>path("error")).isEqualTo("not-granted");
        assertThat(response.<String>path("detail"))
                .isEqualTo("repo train on " + m.name + " has no grant of nvidia.com/gpu=0 (its grants: nvidia.com/gpu=1)");
        assertThat(api.machineGrants(m.name).<Integer>path("version")).isEqualTo(1);
    }

    @Test
    void revokeRemovesTheGrantAndBumpsTheVersion() {
        RepoInfo train = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(api, "revoke", train);
        api.grant(m.ref(train), "nvidia.com/gpu=0", false, "0");
        api.grant(m.ref(train), "rediacc.io/dri=renderD128", false, "0");

        Response revoked = api.revoke(m.ref(train), "nvidia.com/gpu=0", "0");

        assertThat(revoked.statusCode()).isEqualTo(202);
        assertThat(revoked.<Boolean>path("revoked")).isTrue();
        assertThat(revoked.<Integer>path("version")).isEqualTo(3);
        assertThat(api.repoGrants(m.ref(train)).<List<String>>path("grants.device"))
                .containsExactly("rediacc.io/dri=renderD128");
    }

    @Test
    void everyChangeRaisesTheMachineVersionByOne() {
        RepoInfo a = Fleet.repo("a");
        RepoInfo b = Fleet.repo("b");
        TestMachine m = TestMachine.withRepos(api, "versions", a, b);

        int v1 = api.grant(m.ref(a), "nvidia.com/gpu=0", false, "0").path("version");
        int v2 = api.grant(m.ref(b), "nvidia.com/gpu=0", false, "0").path("version");
        int v3 = api.grant(m.ref(a), "nvidia.com/gpu=0", true, "0").statusCode() == 409 ? v2 : -1;
        int v4 = api.revoke(m.ref(b), "nvidia.com/gpu=0", "0").path("version");
        int v5 = api.grant(m.ref(a), "nvidia.com/gpu=0", true, "0").path("version");

        assertThat(List.of(v1, v2, v3, v4, v5)).containsExactly(1, 2, 2, 3, 4);
        assertThat(api.repoGrants(m.ref(a)).<List<Boolean>>path("grants.exclusive")).containsExactly(true);
    }
}
