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
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.interfaces.RSAPrivateCrtKey;
import java.security.spec.PKCS8EncodedKeySpec;
import java.security.spec.RSAPublicKeySpec;
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
    /** The issuer's key pair (test-only, src/test/resources/jwt); the service only knows the public half. */
    private static final KeyPair ISSUER_KEYS = rsa("issuer");
    private static final KeyPair STRANGER_KEYS = rsa("stranger");

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

    /** Issue 31: a principal is input like a reason; a newline in it would forge an audit line. */
    @Test
    void aJwtWhoseCallerNameHasALineBreakOrIsOverlongIs401AndWritesNothing() {
        Instant later = Instant.now().plusSeconds(300);
        String newline = jwt("carol\nactor: admin", Set.of("operator"), ISSUER_KEYS, later);
        String overlong = jwt("c".repeat(129), Set.of("operator"), ISSUER_KEYS, later);
        String machine = Fleet.uniqueMachine("jwt-name");

        var refused = new GrantApi(null, newline).grant("train@" + machine, "nvidia.com/gpu=0", false, "0");
        WhoMayDoWhatTest.assertUnauthorized(refused);
        assertThat(refused.<String>path("detail")).contains("control character");
        WhoMayDoWhatTest.assertUnauthorized(new GrantApi(null, overlong).machineGrants(machine));
        WhoMayDoWhatTest.assertUnauthorized(new GrantApi(null, jwt("carol\u202Eadmin", Set.of("viewer"), ISSUER_KEYS, later))
                .machineGrants(machine));
    }

    /** Issue 31: a token valid until 9999 is a password that never expires; at most api.auth.jwt.max-lifetime (24 h). */
    @Test
    void aJwtValidForLongerThanTheMaximumLifetimeIs401() {
        Instant now = Instant.now();
        String forever = Jwt.issuer(ISSUER).audience(AUDIENCE).upn("carol").subject("carol").groups(Set.of("operator"))
                .issuedAt(now).expiresAt(Instant.parse("9999-12-31T23:59:59Z")).sign(ISSUER_KEYS.getPrivate());
        String dayAndASecond = Jwt.issuer(ISSUER).audience(AUDIENCE).upn("carol").subject("carol").groups(Set.of("operator"))
                .issuedAt(now).expiresAt(now.plus(Duration.ofHours(24)).plusSeconds(1)).sign(ISSUER_KEYS.getPrivate());
        String issuedLater = Jwt.issuer(ISSUER).audience(AUDIENCE).upn("carol").subject("carol").groups(Set.of("operator"))
                .issuedAt(Instant.parse("9999-12-31T00:00:00Z")).expiresAt(Instant.parse("9999-12-31T23:59:59Z"))
                .sign(ISSUER_KEYS.getPrivate());
        String day = Jwt.issuer(ISSUER).audience(AUDIENCE).upn("carol").subject("carol").groups(Set.of("operator"))
                .issuedAt(now).expiresAt(now.plus(Duration.ofHours(24))).sign(ISSUER_KEYS.getPrivate());
        String machine = Fleet.uniqueMachine("jwt-life");

        var refused = new GrantApi(null, forever).machineGrants(machine);
        WhoMayDoWhatTest.assertUnauthorized(refused);
        assertThat(refused.<String>path("detail")).contains("api.auth.jwt.max-lifetime");
        WhoMayDoWhatTest.assertUnauthorized(new GrantApi(null, dayAndASecond).machineGrants(machine));
        WhoMayDoWhatTest.assertUnauthorized(new GrantApi(null, issuedLater).machineGrants(machine));
        assertThat(new GrantApi(null, day).machineGrants(machine).statusCode()).isEqualTo(404);
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

    /**
     * A test key pair from {@code jwt/<name>-private.pem}: files, not made per run, because generating a 2048-bit RSA key
     * with C1 only (the test JVMs' flags; BigInteger's intrinsics are C2's) took seconds of CPU per key.
     */
    private static KeyPair rsa(String name) {
        try (var in = JwtModeTest.class.getResourceAsStream("/jwt/" + name + "-private.pem")) {
            String pem = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.US_ASCII);
            byte[] der = Base64.getMimeDecoder().decode(pem.replaceAll("-----[A-Z ]+-----", ""));
            KeyFactory rsa = KeyFactory.getInstance("RSA");
            RSAPrivateCrtKey key = (RSAPrivateCrtKey) rsa.generatePrivate(new PKCS8EncodedKeySpec(der));
            return new KeyPair(rsa.generatePublic(new RSAPublicKeySpec(key.getModulus(), key.getPublicExponent())), key);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }
}
