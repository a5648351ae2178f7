package io.rediacc.gpu.cli.command;

import io.rediacc.gpu.cli.output.OutputFormat;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.ScopeType;

import java.nio.file.Path;

/**
 * The options every command shares (given before or after the command's name): the services, the
 * config file, the output format. {@code rdc}'s own model runs this object; {@link Session} reads it.
 */
public final class GlobalOptions {

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

    /** Adds the shared options to {@code rdc}'s own model, whose user object this is. */
    public CommandSpec addTo(CommandSpec spec) {
        return spec.addOption(server).addOption(grantServer).addOption(inventoryServer).addOption(config)
                .addOption(output).addOption(noHeaders);
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
}
