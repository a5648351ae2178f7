package io.rediacc.gpu.contracts.kafka;

import java.security.SecureRandom;
import java.util.Base64;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code /etc/rediacc/gpu/kafka.env} on a machine (mode 0600, root): its Kafka user's login, written by
 * {@code rdc machine setup} and read by systemd for node-agent and docker-gate ({@code EnvironmentFile=}),
 * as {@code kafka.sasl.*} settings. One format for rdc, which writes and re-reads it, and the local fleet.
 */
public final class MachineKafkaEnv {

    /** Where it lives on a machine. */
    public static final String PATH = "/etc/rediacc/gpu/kafka.env";

    private static final Pattern LOGIN = Pattern.compile(
            "^KAFKA_SASL_JAAS_CONFIG=org\\.apache\\.kafka\\.common\\.security\\.scram\\.ScramLoginModule required"
                    + " username=\"([A-Za-z0-9._-]+)\" password=\"([A-Za-z0-9_-]+)\";\\s*$", Pattern.MULTILINE);

    /** A user and its password, as the file holds them. */
    public record Login(String username, String password) {
    }

    private MachineKafkaEnv() {
    }

    /** A new password: 32 random bytes, URL-safe base64 (43 characters of {@code [A-Za-z0-9_-]}). */
    public static String newPassword() {
        byte[] b = new byte[32];
        new SecureRandom().nextBytes(b);
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    /** The file's text for a login. */
    public static String render(Login login) {
        return "# Written by rdc machine setup: this machine's Kafka user (docs/SECURITY.md, \"Kafka: one user per machine\").\n"
                + "# node-agent and docker-gate log in with it; rdc machine remove deletes the user. Keep it 0600.\n"
                + "KAFKA_SASL_MECHANISM=" + KafkaAccess.MECHANISM + "\n"
                + "KAFKA_SASL_JAAS_CONFIG=" + KafkaAccess.jaasConfig(login.username(), login.password()) + "\n";
    }

    /** The login a file holds, when it holds one this product wrote. */
    public static Optional<Login> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        Matcher m = LOGIN.matcher(text);
        if (!m.find() || !KafkaAccess.validPassword(m.group(2))) {
            return Optional.empty();
        }
        return Optional.of(new Login(m.group(1), m.group(2)));
    }
}
