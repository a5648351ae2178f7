package io.rediacc.gpu.cli.repo;

import io.rediacc.gpu.cli.command.Commands;
import io.rediacc.gpu.contracts.cdi.CdiName;
import io.rediacc.gpu.contracts.identity.RepoRef;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;

/**
 * What {@code grant} and {@code revoke} both take (a picocli mixin): the repo, its devices, a reason
 * for the history and how long to wait for the gates; read with the contracts' rules by {@link #read}.
 */
public class DeviceChangeOptions {

    /** The name the mixin is added under (the field's name when it was a {@code @Mixin}). */
    static final String MIXIN = "change";

    private final PositionalParamSpec repo = Commands.parameter("0", "<repo-ref>", "The repo: name, or name@machine");
    private final OptionSpec devices = OptionSpec.builder("--device").required(true).paramLabel("<cdi-name>")
            .type(List.class).auxiliaryTypes(String.class)
            .description("A CDI device name to ${COMMAND-NAME}, e.g. nvidia.com/gpu=0; repeat for several").build();
    private final OptionSpec reason = Commands.option("--reason", "<text>", String.class,
            "Why (a ticket, a note): recorded in the history (rdc audit)");
    private final OptionSpec wait = Commands.option("--wait", "<duration>", String.class,
            "How long grant-service waits for the gates: 0, 500ms, 5s, 1m (default: the service's, 5s)");

    /** The mixin's model, added to a command under {@link #MIXIN}. */
    CommandSpec spec() {
        return CommandSpec.create().addPositional(repo).addOption(devices).addOption(reason).addOption(wait);
    }

    /** The options as checked values: the repo, then the devices, then the wait (the first wrong one is a usage error). */
    DeviceChange read(PrintWriter err) {
        RepoRef ref = CommandInput.repo(repo.getValue());
        List<CdiName> names = CommandInput.devices(devices.getValue(), err);
        return new DeviceChange(ref, names, CommandInput.wait(wait.getValue()), reason.getValue());
    }

    /** A grant's or revoke's checked options; {@code waitFor} and {@code reason} are null when not given. */
    record DeviceChange(RepoRef repo, List<CdiName> devices, Duration waitFor, String reason) {
    }
}
