package io.rediacc.gpu.cli;

import io.rediacc.gpu.cli.command.Commands;
import io.rediacc.gpu.cli.command.GlobalOptions;
import picocli.CommandLine.IVersionProvider;
import picocli.CommandLine.Model.CommandSpec;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/** {@code rdc}: its own model (the options every command shares, {@link GlobalOptions}), its version and examples. */
public class RdcCommand {

    private RdcCommand() {
    }

    /** rdc's own model, without its subcommands ({@link CommandTree} adds them). */
    public static CommandSpec spec() {
        GlobalOptions options = new GlobalOptions();
        CommandSpec spec = Commands.command(options, "rdc",
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
        return Commands.withStandardHelpOptions(options.addTo(spec));
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
