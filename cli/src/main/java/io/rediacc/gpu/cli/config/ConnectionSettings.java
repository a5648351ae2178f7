package io.rediacc.gpu.cli.config;

import io.rediacc.gpu.cli.failure.Failure;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Locale;
import java.util.Map;

/**
 * Where the services are and the token to send. Each value comes from the first place that sets
 * it: command-line option, environment, config file, default.
 *
 * @param token sent as {@code Authorization: Bearer <token>}; null when none is configured
 */
public record ConnectionSettings(URI grantUrl, URI inventoryUrl, String token) {

    public static final String DEFAULT_GRANT_URL = "http://localhost:8081";
    public static final String DEFAULT_INVENTORY_URL = "http://localhost:8082";
    public static final String ENV_GRANT_URL = "RDC_GRANT_URL";
    public static final String ENV_INVENTORY_URL = "RDC_INVENTORY_URL";
    public static final String ENV_TOKEN = "RDC_TOKEN";
    public static final String ENV_CONFIG = "RDC_CONFIG";

    /** What the command line said; null where it said nothing. */
    public record Options(String server, String grantServer, String inventoryServer, Path configFile) {
    }

    public static ConnectionSettings resolve(Options options, Map<String, String> env) {
        ConfigFile file = configFile(options.configFile(), env);
        String grant = first(options.grantServer(), options.server(), env.get(ENV_GRANT_URL), file.grantUrl(), DEFAULT_GRANT_URL);
        String inventory = first(options.inventoryServer(), options.server(), env.get(ENV_INVENTORY_URL), file.inventoryUrl(),
                DEFAULT_INVENTORY_URL);
        String token = first(env.get(ENV_TOKEN), file.token(), null);
        return new ConnectionSettings(url("grant-service", grant), url("inventory-service", inventory), token);
    }

    /** The config file rdc reads ({@link #configPath}); a file named explicitly must exist, the default one may be absent. */
    public static ConfigFile configFile(Path option, Map<String, String> env) {
        boolean explicit = option != null || present(env.get(ENV_CONFIG));
        return ConfigFile.read(configPath(option, env), explicit);
    }

    /** {@code --config}, else {@code RDC_CONFIG}, else {@code $XDG_CONFIG_HOME/rdc/config.yaml}, else {@code ~/.config/rdc/config.yaml}. */
    public static Path configPath(Path option, Map<String, String> env) {
        if (option != null) {
            return option;
        }
        if (present(env.get(ENV_CONFIG))) {
            return Path.of(env.get(ENV_CONFIG));
        }
        if (present(env.get("XDG_CONFIG_HOME"))) {
            return Path.of(env.get("XDG_CONFIG_HOME"), "rdc", "config.yaml");
        }
        String home = present(env.get("HOME")) ? env.get("HOME") : System.getProperty("user.home");
        return Path.of(home, ".config", "rdc", "config.yaml");
    }

    static URI url(String service, String value) {
        String trimmed = value.strip();
        while (trimmed.endsWith("/")) {
            trimmed = trimmed.substring(0, trimmed.length() - 1);
        }
        try {
            URI uri = new URI(trimmed);
            String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
            if (!(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null
                    || uri.getQuery() != null || uri.getFragment() != null) {
                throw Failure.usage(service + " URL \"" + value + "\" is invalid: expected http(s)://host[:port][/prefix], e.g. "
                        + ("grant-service".equals(service) ? DEFAULT_GRANT_URL : DEFAULT_INVENTORY_URL));
            }
            return uri;
        } catch (URISyntaxException e) {
            throw Failure.usage(service + " URL \"" + value + "\" is invalid: " + e.getReason());
        }
    }

    private static String first(String... values) {
        for (String v : values) {
            if (present(v)) {
                return v.strip();
            }
        }
        return null;
    }

    private static boolean present(String v) {
        return v != null && !v.isBlank();
    }
}
