package io.rediacc.gpu.contracts.signing;

import org.junit.jupiter.api.Test;

import java.math.BigInteger;
import java.security.KeyPair;
import java.security.Signature;
import java.util.Arrays;
import java.util.Random;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * RecordVerifier checks signatures with Bouncy Castle's Ed25519 for speed; the JDK's provider, which it
 * replaced, is the oracle: both accept the same signatures and refuse the same damaged ones, except that
 * RecordVerifier also refuses a signature with bytes appended.
 */
class Ed25519AgreementTest {

    // the group order L (RFC 8032): S + L is the same point arithmetic, a non-canonical S that must be refused
    private static final BigInteger L = BigInteger.ONE.shiftLeft(252).add(new BigInteger("27742317777372353535851937790883648493"));
    private final Random random = new Random(20261201);

    @Test
    void acceptsWhatTheJdkAcceptsAndRefusesWhatItRefuses() throws Exception {
        for (int i = 0; i < 200; i++) {
            KeyPair pair = SigningKeys.generate();
            byte[] message = new byte[random.nextInt(5000)];
            random.nextBytes(message);
            byte[] signature = jdkSign(pair, message);
            agree(pair, message, signature, true);
            agree(pair, message, flipBit(signature), false);
            agree(pair, flipBit(message.length == 0 ? new byte[1] : message), signature, false);
            agree(pair, message, Arrays.copyOf(signature, 63), false);
            // the JDK 17 provider reads only the first 64 bytes and accepts this; a signature is 64 bytes, no more
            assertThat(RecordVerifier.valid(pair.getPublic(), message, Arrays.copyOf(signature, 65))).isFalse();
            agree(pair, message, withSPlusL(signature), false);
            agree(SigningKeys.generate(), message, signature, false);
        }
    }

    private void agree(KeyPair pair, byte[] message, byte[] signature, boolean expected) throws Exception {
        assertThat(jdkVerify(pair, message, signature)).as("the JDK's answer").isEqualTo(expected);
        assertThat(RecordVerifier.valid(pair.getPublic(), message, signature)).as("RecordVerifier's answer").isEqualTo(expected);
    }

    private byte[] flipBit(byte[] bytes) {
        byte[] copy = bytes.clone();
        copy[random.nextInt(copy.length)] ^= (byte) (1 << random.nextInt(8));
        return copy;
    }

    private static byte[] withSPlusL(byte[] signature) {
        byte[] s = Arrays.copyOfRange(signature, 32, 64);
        reverse(s);
        byte[] big = new BigInteger(1, s).add(L).toByteArray();
        reverse(big);
        byte[] out = signature.clone();
        Arrays.fill(out, 32, 64, (byte) 0);
        System.arraycopy(big, 0, out, 32, Math.min(32, big.length));
        return out;
    }

    private static void reverse(byte[] b) {
        for (int i = 0, j = b.length - 1; i < j; i++, j--) {
            byte t = b[i];
            b[i] = b[j];
            b[j] = t;
        }
    }

    private static byte[] jdkSign(KeyPair pair, byte[] message) throws Exception {
        Signature s = Signature.getInstance(SigningKeys.ALGORITHM);
        s.initSign(pair.getPrivate());
        s.update(message);
        return s.sign();
    }

    private static boolean jdkVerify(KeyPair pair, byte[] message, byte[] signature) {
        try {
            Signature s = Signature.getInstance(SigningKeys.ALGORITHM);
            s.initVerify(pair.getPublic());
            s.update(message);
            return s.verify(signature);
        } catch (Exception e) {
            return false;
        }
    }
}
