package io.rediacc.gpu.cli;

import io.rediacc.gpu.cli.output.OutputFormat;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ScopeType;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Properties;

/** {@code rdc}: the options every command shares, and the commands. */
public class RdcCommand {

    private final OptionSpec server = inherited("--server", "<url>", String.class,
            "Base URL of both services when one gateway serves them").build();
    private final OptionSpec grantServer = inherited("--grant-server", "<url>", String.class,
            "grant-service base URL (default http://localhost:8081)").build();
    private final OptionSpec inventoryServer = inherited("--inventory-server", "<url>", String.class,
            "inventory-service base URL (default http://localhost:8082)").build();
    private final OptionSpec config = inherited("--config", "<file>", Path.class,
            "Config file (default: RDC_CONFIG, else ~/.config/rdc/config.yaml)").build();
    private final OptionSpec output = OptionSpec.builder("-o", "--output").scopeType(ScopeType.INHERIT).paramLabel("<format>")
            .type(OutputFormat.class).defaultValue("table")
            .description("Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE})").build();
    private final OptionSpec noHeaders = OptionSpec.builder("--no-headers").scopeType(ScopeType.INHERIT).type(boolean.class)
            .initialValue(false).description("Table output without its header line (for scripts: awk, cut, while read)").build();

    private RdcCommand() {
    }

    /** rdc's own model, without its subcommands ({@link CommandTree} adds them). */
    public static CommandSpec spec() {
        RdcCommand rdc = new RdcCommand();
        CommandSpec spec = Commands.command(rdc, "rdc",
                new String[]{"Fleet-wide GPU device grants for Docker: list machines and their GPUs, grant and revoke "
                        + "CDI device names to repos."},
                "  rdc machine list",
                "  rdc machine gpu list gpu-host-1",
                "  rdc repo gpu grant train-a@gpu-host-1 --device nvidia.com/gpu=0 --exclusive",
                "  rdc --server https://gpu-api.example.com repo gpu list train-a",
                "  rdc audit --since 24h",
                "",
                "Services: --grant-server and --inventory-server (--server sets both), else",
                "RDC_GRANT_URL and RDC_INVENTORY_URL, else grantUrl and inventoryUrl in",
                "~/.config/rdc/config.yaml, else http://localhost:8081 and :8082.",
                "Token: RDC_TOKEN, else token in the config file; sent as Authorization: Bearer.",
                "",
                "Exit codes: 0 ok, 1 error (e.g. a service unreachable), 2 usage, 3 not found,",
                "4 conflict (held exclusively), 5 recorded but not yet enforced.");
        spec.versionProvider(new Version());
        spec.addOption(rdc.server).addOption(rdc.grantServer).addOption(rdc.inventoryServer).addOption(rdc.config)
                .addOption(rdc.output).addOption(rdc.noHeaders);
        return Commands.withStandardHelpOptions(spec);
    }

    private static OptionSpec.Builder inherited(String name, String paramLabel, Class<?> type, String description) {
        return OptionSpec.builder(name).scopeType(ScopeType.INHERIT).paramLabel(paramLabel).type(type).description(description);
    }

    /** {@code --server}, or null. */
    public String server() {
        return server.getValue();
    }

    /** {@code --grant-server}, or null. */
    public String grantServer() {
        return grantServer.getValue();
    }

    /** {@code --inventory-server}, or null. */
    public String inventoryServer() {
        return inventoryServer.getValue();
    }

    /** {@code --config}, or null. */
    public Path config() {
        return config.getValue();
    }

    /** {@code -o}: table unless given. */
    public OutputFormat output() {
        OutputFormat format = output.getValue();
        return format == null ? OutputFormat.table : format;
    }

    /** {@code --no-headers}. */
    public boolean noHeaders() {
        return Commands.isSet(noHeaders);
    }

    /** The version from the build (rdc.properties, filled in by Maven). */
    static class Version implements IVersionProvider {
        @Override
        public String[] getVersion() {
            Properties properties = new Properties();
            try (InputStream in = RdcCommand.class.getResourceAsStream("/rdc.properties")) {
                if (in != null) {
                    properties.load(in);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
            return new String[]{"rdc " + properties.getProperty("version", "unknown")};
        }
    }
}
