package io.rediacc.gpu.cli;

import io.rediacc.gpu.cli.output.OutputFormat;
import picocli.CommandLine.Command;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Option;
import picocli.CommandLine.ScopeType;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.Properties;

/** {@code rdc}: the options every command shares, and the commands. */
@Command(name = "rdc", mixinStandardHelpOptions = true, versionProvider = RdcCommand.Version.class,
        description = "Fleet-wide GPU device grants for Docker: list machines and their GPUs, grant and revoke "
                + "CDI device names to repos.",
        footerHeading = "%nExamples:%n",
        footer = {
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
                "4 conflict (held exclusively), 5 recorded but not yet enforced."})
public class RdcCommand {

    @Option(names = "--server", scope = ScopeType.INHERIT, paramLabel = "<url>",
            description = "Base URL of both services when one gateway serves them")
    String server;

    @Option(names = "--grant-server", scope = ScopeType.INHERIT, paramLabel = "<url>",
            description = "grant-service base URL (default http://localhost:8081)")
    String grantServer;

    @Option(names = "--inventory-server", scope = ScopeType.INHERIT, paramLabel = "<url>",
            description = "inventory-service base URL (default http://localhost:8082)")
    String inventoryServer;

    @Option(names = "--config", scope = ScopeType.INHERIT, paramLabel = "<file>",
            description = "Config file (default: RDC_CONFIG, else ~/.config/rdc/config.yaml)")
    Path config;

    @Option(names = {"-o", "--output"}, scope = ScopeType.INHERIT, paramLabel = "<format>", defaultValue = "table",
            description = "Output format: ${COMPLETION-CANDIDATES} (default: ${DEFAULT-VALUE})")
    OutputFormat output;

    @Option(names = "--no-headers", scope = ScopeType.INHERIT,
            description = "Table output without its header line (for scripts: awk, cut, while read)")
    boolean noHeaders;

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
