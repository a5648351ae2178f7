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
import io.smallrye.jwt.build.Jwt;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.NoSuchAlgorithmException;
import java.time.Duration;
import java.time.Instant;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;

import static org.assertj.core.api.Assertions.assertThat;

/** api.auth.mode=jwt: tokens signed by the configured issuer's key, roles from the groups claim. */
@QuarkusTest
@TestProfile(JwtModeTest.JwtProfile.class)
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class JwtModeTest {

    private static final String ISSUER = "https://issuer.test.rediacc.io";
    private static final String AUDIENCE = "rediacc-gpu-api";
    /** The issuer's key pair, made for this test run; the service only knows the public half. */
    private static final KeyPair ISSUER_KEYS = rsa();
    private static final KeyPair STRANGER_KEYS = rsa();

    public static class JwtProfile implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("api.auth.mode", "jwt",
                    "mp.jwt.verify.publickey.location", publicKeyFile().toUri().toString(),
                    "mp.jwt.verify.issuer", ISSUER,
                    "mp.jwt.verify.audiences", AUDIENCE);
        }
    }

    @Test
    void anOperatorJwtMayGrantAndTheAuditNamesItsSubject() {
        GrantApi carol = new GrantApi(null, jwt("carol", Set.of("operator"), ISSUER_KEYS, Instant.now().plusSeconds(300)));
        RepoInfo train = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(carol, "jwt", train);

        assertThat(carol.grant(m.ref(train), "nvidia.com/gpu=0", false, "0").statusCode()).isEqualTo(202);
        assertThat(carol.repoGrants(m.ref(train)).<List<String>>path("grants.grantedBy")).containsExactly("carol");
    }

    @Test
    void aViewerJwtMayReadButNotGrant() {
        GrantApi dave = new GrantApi(null, jwt("dave", Set.of("viewer"), ISSUER_KEYS, Instant.now().plusSeconds(300)));

        assertThat(dave.machineGrants(Fleet.uniqueMachine("nowhere")).statusCode()).isEqualTo(404);
        WhoMayDoWhatTest.assertForbidden(dave.grant("train@m1", "nvidia.com/gpu=0", false, "0"));
    }

    @Test
    void aJwtSignedByAnotherKeyExpiredOrAConfiguredTokenIs401() {
        String forged = jwt("mallory", Set.of("operator"), STRANGER_KEYS, Instant.now().plusSeconds(300));
        String expired = jwt("carol", Set.of("operator"), ISSUER_KEYS, Instant.now().minus(Duration.ofHours(1)));

        WhoMayDoWhatTest.assertUnauthorized(new GrantApi(null, forged).grant("train@m1", "nvidia.com/gpu=0", false, "0"));
        WhoMayDoWhatTest.assertUnauthorized(new GrantApi(null, expired).machineGrants("m1"));
        // the tokens mode's secrets mean nothing in the jwt mode
        WhoMayDoWhatTest.assertUnauthorized(new GrantApi().machineGrants("m1"));
        WhoMayDoWhatTest.assertUnauthorized(new GrantApi(null, null).machineGrants("m1"));
    }

    @Test
    void aJwtForAnotherAudienceOrFromAnotherIssuerIs401() {
        Instant later = Instant.now().plusSeconds(300);
        String otherAudience = Jwt.issuer(ISSUER).audience("some-other-service").upn("carol").subject("carol")
                .groups(Set.of("operator")).expiresAt(later).sign(ISSUER_KEYS.getPrivate());
        String noAudience = Jwt.issuer(ISSUER).upn("carol").subject("carol")
                .groups(Set.of("operator")).expiresAt(later).sign(ISSUER_KEYS.getPrivate());
        String otherIssuer = Jwt.issuer("https://elsewhere.example").audience(AUDIENCE).upn("carol").subject("carol")
                .groups(Set.of("operator")).expiresAt(later).sign(ISSUER_KEYS.getPrivate());

        WhoMayDoWhatTest.assertUnauthorized(new GrantApi(null, otherAudience).machineGrants("m1"));
        WhoMayDoWhatTest.assertUnauthorized(new GrantApi(null, noAudience).machineGrants("m1"));
        WhoMayDoWhatTest.assertUnauthorized(new GrantApi(null, otherIssuer).machineGrants("m1"));
        // the same claims with this service's audience and issuer are let in
        assertThat(new GrantApi(null, jwt("carol", Set.of("operator"), ISSUER_KEYS, later))
                .machineGrants(Fleet.uniqueMachine("aud")).statusCode()).isEqualTo(404);
    }

    private static String jwt(String subject, Set<String> groups, KeyPair keys, Instant expiresAt) {
        return Jwt.issuer(ISSUER).audience(AUDIENCE).upn(subject).subject(subject).groups(groups)
                .issuedAt(expiresAt.minusSeconds(600)).expiresAt(expiresAt)
                .sign(keys.getPrivate());
    }

    private static Path publicKeyFile() {
        try {
            Path file = Files.createTempFile("grants-jwt", ".pem");
            file.toFile().deleteOnExit();
            Files.writeString(file, "-----BEGIN PUBLIC KEY-----\n"
                    + Base64.getMimeEncoder(64, "\n".getBytes()).encodeToString(ISSUER_KEYS.getPublic().getEncoded())
                    + "\n-----END PUBLIC KEY-----\n");
            return file;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static KeyPair rsa() {
        try {
            KeyPairGenerator generator = KeyPairGenerator.getInstance("RSA");
            generator.initialize(2048);
            return generator.generateKeyPair();
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
