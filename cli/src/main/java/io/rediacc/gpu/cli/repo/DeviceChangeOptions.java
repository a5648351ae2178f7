package io.rediacc.gpu.cli.repo;

import io.rediacc.gpu.contracts.cdi.CdiName;
import io.rediacc.gpu.contracts.identity.RepoRef;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

import java.io.PrintWriter;
import java.time.Duration;
import java.util.List;

/**
 * What {@code grant} and {@code revoke} both take (a picocli mixin): the repo, its devices, a reason
 * for the history and how long to wait for the gates; read with the contracts' rules by {@link #read}.
 */
public class DeviceChangeOptions {

    @Parameters(index = "0", paramLabel = "<repo-ref>", description = "The repo: name, or name@machine")
    String repo;

    @Option(names = "--device", required = true, paramLabel = "<cdi-name>",
            description = "A CDI device name to ${COMMAND-NAME}, e.g. nvidia.com/gpu=0; repeat for several")
    List<String> devices;

    @Option(names = "--reason", paramLabel = "<text>",
            description = "Why (a ticket, a note): recorded in the history (rdc audit)")
    String reason;

    @Option(names = "--wait", paramLabel = "<duration>",
            description = "How long grant-service waits for the gates: 0, 500ms, 5s, 1m (default: the service's, 5s)")
    String wait;

    /** The options as checked values: the repo, then the devices, then the wait (the first wrong one is a usage error). */
    DeviceChange read(PrintWriter err) {
        RepoRef ref = CommandInput.repo(repo);
        List<CdiName> names = CommandInput.devices(devices, err);
        return new DeviceChange(ref, names, CommandInput.wait(wait), reason);
    }

    /** A grant's or revoke's checked options; {@code waitFor} and {@code reason} are null when not given. */
    record DeviceChange(RepoRef repo, List<CdiName> devices, Duration waitFor, String reason) {
    }
}
