package io.rediacc.gpu.cli.command;

import io.rediacc.gpu.cli.client.GrantClient;
import io.rediacc.gpu.cli.client.InventoryClient;
import io.rediacc.gpu.cli.client.ServiceClient;
import io.rediacc.gpu.cli.config.ConnectionSettings;
import com.fasterxml.jackson.databind.JsonNode;
import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.output.Documents;
import io.rediacc.gpu.cli.output.OutputFormat;
import io.rediacc.gpu.cli.output.Table;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.util.Map;
import java.util.function.Consumer;

/** What one command run works with: output streams and format, and the two services. */
public final class Session {

    private final CommandSpec spec;
    private final GlobalOptions root;
    private final Map<String, String> env;
    private ConnectionSettings settings;

    private Session(CommandSpec spec, Map<String, String> env) {
        this.spec = spec;
        this.root = (GlobalOptions) spec.root().userObject();
        this.env = env;
    }

    public static Session of(CommandSpec spec) {
        return new Session(spec, System.getenv());
    }

    public PrintWriter out() {
        return spec.commandLine().getOut();
    }

    public PrintWriter err() {
        return spec.commandLine().getErr();
    }

    public OutputFormat format() {
        return root.output();
    }

    /** A table with these columns; its header line is left out under {@code --no-headers}. */
    public Table table(String... header) {
        return new Table(!root.noHeaders(), header);
    }

    /**
     * The print path every command shares: {@code document} as JSON or YAML when one of them was
     * asked for, else what {@code table} prints for people; flushed. The exit code: 0.
     */
    public int show(JsonNode document, Consumer<PrintWriter> table) {
        if (format() == OutputFormat.table) {
            table.accept(out());
            out().flush();
        } else {
            Documents.print(out(), format(), document);
        }
        return ExitCodes.OK;
    }

    public InventoryClient inventory() {
        return new InventoryClient(new ServiceClient(InventoryClient.SERVICE, settings().inventoryUrl(), settings().token(), null));
    }

    public GrantClient grants() {
        return new GrantClient(new ServiceClient(GrantClient.SERVICE, settings().grantUrl(), settings().token(), actor()));
    }

    /** Prints a warning on stderr; it does not change the exit code. */
    public void warn(String message) {
        err().println("warning: " + message);
        err().flush();
    }

    /** rdc's config file (the machines rdc machine setup reaches over SSH). */
    public io.rediacc.gpu.cli.config.ConfigFile configFile() {
        return ConnectionSettings.configFile(root.config(), env);
    }

    /** Where the config file is, for messages. */
    public java.nio.file.Path configPath() {
        return ConnectionSettings.configPath(root.config(), env);
    }

    private ConnectionSettings settings() {
        if (settings == null) {
            settings = ConnectionSettings.resolve(
                    new ConnectionSettings.Options(root.server(), root.grantServer(), root.inventoryServer(), root.config()), env);
        }
        return settings;
    }

    /** Who grants, for the audit trail (until authentication names the caller): rdc/$USER. */
    private String actor() {
        String user = env.get("USER");
        return user != null && user.matches("[A-Za-z0-9._-]{1,64}") ? "rdc/" + user : "rdc";
    }
}
