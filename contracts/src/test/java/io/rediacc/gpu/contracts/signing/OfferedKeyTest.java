package io.rediacc.gpu.contracts.signing;

import org.junit.jupiter.api.Test;

import java.security.PublicKey;
import java.util.Base64;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The key text an operator registers for a machine: one rule for grant-service and inventory-service. */
class OfferedKeyTest {

    private final PublicKey key = SigningKeys.generate().getPublic();

    @Test
    void pemAndTheBase64LineNodeAgentPrintsAreTheSameKey() {
        String line = Base64.getEncoder().encodeToString(key.getEncoded());

        assertThat(SigningKeys.parseOffered(SigningKeys.publicPem(key))).isEqualTo(key);
        assertThat(SigningKeys.parseOffered("  " + line + "\n")).isEqualTo(key);
    }

    @Test
    void anOversizedLineIsRefusedByItsLengthBeforeItIsDecoded() {
        // valid base64 of 6,000 characters: refused for its length, not decoded into a 4.5 KB key
        String huge = "A".repeat(6_000);

        assertThatThrownBy(() -> SigningKeys.parseOffered(huge)).isInstanceOf(SigningKeys.InvalidKeyText.class)
                .hasMessage("the key is 6000 characters; an Ed25519 key is about 60");
    }

    @Test
    void textThatIsNeitherPemNorBase64SaysSo() {
        assertThatThrownBy(() -> SigningKeys.parseOffered("not a key")).isInstanceOf(SigningKeys.InvalidKeyText.class)
                .hasMessageStartingWith("neither PEM nor base64");
    }

    @Test
    void base64OfSomethingElseIsNotAnEd25519Key() {
        String rsaLike = Base64.getEncoder().encodeToString(new byte[44]);

        assertThatThrownBy(() -> SigningKeys.parseOffered(rsaLike)).isInstanceOf(SigningKeys.InvalidKeyText.class)
                .hasMessageStartingWith("not an Ed25519 public key");
    }
}
