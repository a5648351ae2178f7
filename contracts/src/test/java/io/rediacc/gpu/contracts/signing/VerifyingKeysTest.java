package io.rediacc.gpu.contracts.signing;

import org.junit.jupiter.api.Test;

import java.security.KeyPair;

import static org.assertj.core.api.Assertions.assertThat;

/** Keys are decoded once per encoding, and a decoded key verifies exactly as the key itself does. */
class VerifyingKeysTest {

    @Test
    void aKeyIsDecodedOnceByItsBytesWhicheverObjectCarriesThem() {
        KeyPair pair = SigningKeys.generate();
        VerifyingKeys.Decoded first = VerifyingKeys.of(pair.getPublic());
        // the services parse a machine's key from its PEM text: another object, the same bytes
        VerifyingKeys.Decoded again = VerifyingKeys.of(SigningKeys.parsePublic(SigningKeys.publicPem(pair.getPublic())));

        assertThat(again).isSameAs(first);
        assertThat(first.keyId()).isEqualTo(SigningKeys.keyId(pair.getPublic()));
        assertThat(first.raw()).isTrue();
        assertThat(first.point()).isNotNull();
    }

    @Test
    void aDecodedKeyVerifiesItsOwnSignaturesAndNoOtherKeys() throws Exception {
        KeyPair pair = SigningKeys.generate();
        KeyPair other = SigningKeys.generate();
        byte[] bytes = "the signed bytes".getBytes(java.nio.charset.StandardCharsets.US_ASCII);
        byte[] signature = new Ed25519Math.SigningKey(pair.getPrivate()).sign(bytes);

        assertThat(Ed25519Math.verify(VerifyingKeys.of(pair.getPublic()), bytes, signature)).isTrue();
        assertThat(Ed25519Math.verify(VerifyingKeys.of(other.getPublic()), bytes, signature)).isFalse();
        // decoded already: the second check of the same key answers the same
        assertThat(Ed25519Math.verify(VerifyingKeys.of(pair.getPublic()), bytes, signature)).isTrue();
    }
}
