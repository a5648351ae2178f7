package io.rediacc.gpu.contracts.signing;

import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.security.KeyPair;
import java.security.Signature;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/** The Bouncy Castle arithmetic against the JDK's provider as the oracle: the same signatures, the same verdicts. */
class Ed25519MathTest {

    /** The order of Ed25519's base point: S + L verifies under a check that skips S < L. */
    private static final BigInteger L = BigInteger.TWO.pow(252).add(new BigInteger("27742317777372353535851937790883648493"));

    private final Random random = new Random(20261201);

    @Test
    void signaturesAreByteForByteTheJdks() throws Exception {
        for (int i = 0; i < 40; i++) {
            KeyPair pair = SigningKeys.generate();
            byte[] bytes = bytes(i * 97); // 0 bytes up to a large snapshot
            byte[] mine = new Ed25519Math.SigningKey(pair.getPrivate()).sign(bytes);
            assertThat(mine).isEqualTo(jdkSign(pair, bytes));
            assertThat(Ed25519Math.verify(pair.getPublic(), bytes, mine)).isTrue();
        }
    }

    @Test
    void changedBytesSignaturesOrKeysAreRefusedAsTheJdkRefusesThem() throws Exception {
        KeyPair pair = SigningKeys.generate();
        KeyPair other = SigningKeys.generate();
        byte[] bytes = bytes(1400);
        byte[] signature = jdkSign(pair, bytes);
        for (int i = 0; i < 64; i++) {
            byte[] flipped = signature.clone();
            flipped[i] ^= (byte) (1 << (i % 8));
            assertSameVerdict(pair, bytes, flipped);
            byte[] changed = bytes.clone();
            changed[random.nextInt(changed.length)] ^= 1;
            assertSameVerdict(pair, changed, signature);
        }
        assertSameVerdict(other, bytes, signature);
        assertSameVerdict(pair, bytes, java.util.Arrays.copyOf(signature, 63));
        // the one difference: JDK 17 accepts a valid signature with bytes appended; RFC 8032's is 64 bytes
        assertThat(jdkVerify(pair, bytes, java.util.Arrays.copyOf(signature, 65))).isTrue();
        assertThat(Ed25519Math.verify(pair.getPublic(), bytes, java.util.Arrays.copyOf(signature, 65))).isFalse();
        assertSameVerdict(pair, bytes, new byte[64]);
        assertThat(Ed25519Math.verify(pair.getPublic(), bytes, signature)).isTrue();
    }

    @Test
    void aNonCanonicalSIsRefused() throws Exception {
        KeyPair pair = SigningKeys.generate();
        byte[] bytes = bytes(200);
        byte[] signature = jdkSign(pair, bytes);
        byte[] sPlusL = signature.clone();
        byte[] s = java.util.Arrays.copyOfRange(signature, 32, 64);
        BigInteger malleated = new BigInteger(1, reverse(s)).add(L);
        byte[] le = reverse(malleated.toByteArray());
        java.util.Arrays.fill(sPlusL, 32, 64, (byte) 0);
        System.arraycopy(le, 0, sPlusL, 32, Math.min(32, le.length));
        assertThat(Ed25519Math.verify(pair.getPublic(), bytes, sPlusL)).isFalse();
        assertSameVerdict(pair, bytes, sPlusL);
    }

    private void assertSameVerdict(KeyPair pair, byte[] bytes, byte[] signature) throws Exception {
        assertThat(Ed25519Math.verify(pair.getPublic(), bytes, signature)).isEqualTo(jdkVerify(pair, bytes, signature));
    }

    private byte[] bytes(int n) {
        byte[] b = new byte[n];
        random.nextBytes(b);
        return b;
    }

    private static byte[] jdkSign(KeyPair pair, byte[] bytes) throws Exception {
        Signature s = Signature.getInstance(SigningKeys.ALGORITHM);
        s.initSign(pair.getPrivate());
        s.update(bytes);
        return s.sign();
    }

    private static boolean jdkVerify(KeyPair pair, byte[] bytes, byte[] signature) {
        try {
            Signature s = Signature.getInstance(SigningKeys.ALGORITHM);
            s.initVerify(pair.getPublic());
            s.update(bytes);
            return s.verify(signature);
        } catch (Exception e) {
            return false; // RecordVerifier reads an exception as a refusal
        }
    }

    private static byte[] reverse(byte[] b) {
        byte[] r = new byte[b.length];
        for (int i = 0; i < b.length; i++) {
            r[i] = b[b.length - 1 - i];
        }
        return r;
    }
}
