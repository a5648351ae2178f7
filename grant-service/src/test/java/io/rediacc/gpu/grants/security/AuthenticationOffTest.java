package io.rediacc.gpu.grants.security;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.grants.repository.InitializerDatabaseStartTest;
import io.rediacc.gpu.grants.testing.Fleet;
import io.rediacc.gpu.grants.testing.GrantApi;
import io.rediacc.gpu.grants.testing.NoAuthOnInitializerDatabase;
import io.rediacc.gpu.grants.testing.TestMachine;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.restassured.http.ContentType;
import io.restassured.response.Response;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * api.auth.mode=none (development only): everyone is an operator and X-Actor names the caller. It shares its
 * application with InitializerDatabaseStartTest ({@link NoAuthOnInitializerDatabase}: one start, not two).
 */
@QuarkusTest
@TestProfile(NoAuthOnInitializerDatabase.class)
@WithTestResource(KafkaTestResource.class)
@WithTestResource(InitializerDatabaseStartTest.InitializerDatabase.class)
class AuthenticationOffTest {

    private final GrantApi api = new GrantApi(null, null);

    @Test
    void withoutAuthenticationTheXActorHeaderNamesTheCaller() {
        RepoInfo train = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(api, "noauth", train);

        api.request().header("X-Actor", "alice").contentType(ContentType.JSON)
                .body(Map.of("device", "nvidia.com/gpu=0")).queryParam("wait", "0")
                .post("/api/v1/repos/{repo}/grants", m.ref(train)).then().statusCode(202);
        api.grant(m.ref(train), "nvidia.com/gpu=1", false, "0").then().statusCode(202);

        assertThat(api.repoGrants(m.ref(train)).<List<String>>path("grants.grantedBy"))
                .containsExactlyInAnyOrder("alice", "anonymous");
    }

    @Test
    void invalidActorIs400() {
        Response response = api.request().contentType(ContentType.JSON).header("X-Actor", "a".repeat(200))
                .body(Map.of("device", "nvidia.com/gpu=0")).post("/api/v1/repos/train@m1/grants");

        assertThat(response.statusCode()).as(response.asString()).isEqualTo(400);
        assertThat(response.<String>path("error")).isEqualTo("invalid-actor");
    }
}
