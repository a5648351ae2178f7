package io.rediacc.gpu.cli.machine.setup;

import io.rediacc.gpu.cli.machine.MachineNames;
import io.rediacc.gpu.cli.command.Commands;
import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.failure.Failure;
import io.rediacc.gpu.cli.command.Session;
import io.rediacc.gpu.cli.config.ConfigFile;
import io.rediacc.gpu.cli.machine.setup.DebPackage;
import io.rediacc.gpu.cli.machine.setup.SetupRun;
import io.rediacc.gpu.cli.machine.setup.SetupStep;
import io.rediacc.gpu.cli.machine.setup.SetupSteps;
import io.rediacc.gpu.cli.repo.CommandInput;
import io.rediacc.gpu.cli.ssh.Ssh;
import io.rediacc.gpu.cli.ssh.SshTarget;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.Callable;

/**
 * {@code rdc machine setup <machine>}: from the operator's seat, over SSH, a machine from bare to
 * enforced: the steps of {@link SetupSteps} in order (SSH, the rediacc-gpu-node package,
 * {@code node-agent prepare}, the fleet), each printing changed or unchanged. A plain picocli
 * command: nothing injected.
 */
public class MachineSetupCommand implements Callable<Integer> {

    private final PositionalParamSpec machine = Commands.parameter("0", "<machine>", "Machine name, as its node-agent reports it");
    private final OptionSpec installNvidiaToolkit = OptionSpec.builder("--install-nvidia-toolkit").paramLabel("auto|true|false")
            .type(String.class)
            .description("auto: when an NVIDIA GPU is present; true: always; false: never, and no NVIDIA spec. Default: the"
                    + " machine's last choice (INSTALL_NVIDIA_TOOLKIT in /etc/rediacc/gpu/node-agent.env), else auto").build();
    // (no brackets in the label: the man page's AsciiDoc would read "addr[...]" as a macro)
    private final OptionSpec host = Commands.option("--host", "<user@addr:port>", String.class,
            "SSH address; the user defaults to root, the port to 22 (default: machines.<machine>.host in the config file)");
    private final OptionSpec identity = Commands.option("--identity", "<file>", Path.class,
            "SSH private key (default: machines.<machine>.identity, else ssh's own)");
    private final OptionSpec knownHosts = Commands.option("--known-hosts", "<file>", Path.class,
            "known_hosts file for the host key (default: machines.<machine>.knownHosts, else ssh's own)");
    private final OptionSpec packageFile = Commands.option("--package", "<file.deb|dir>", Path.class,
            "The rediacc-gpu-node .deb to install, or a directory holding it (default: deploy/debian/target of the build rdc comes from)");
    private final OptionSpec rekey = Commands.flag("--rekey", "Register the machine's key even when another key is registered for it"
            + " (a reinstalled machine); audited. Without it a different key is refused.");
    private final OptionSpec force = Commands.flag("--force", "Go ahead even when setup removes CDI devices that hold grants"
            + " (e.g. --install-nvidia-toolkit false with NVIDIA grants): those grants become orphaned, refused by the gate"
            + " until the devices return. Without it such a setup is refused, changing nothing, and names each grant's revoke.");
    private final OptionSpec wait = OptionSpec.builder("--wait").paramLabel("<duration>").type(String.class).defaultValue("3m")
            .description("How long to wait for the fleet to see the machine ready: 0 (do not wait), 30s, 3m (default)").build();
    private CommandSpec spec;

    private MachineSetupCommand() {
    }

    /** The command's model (built in code: see {@link Commands}). */
    public static CommandSpec spec() {
        MachineSetupCommand command = new MachineSetupCommand();
        command.spec = Commands.command(command, "setup",
                        new String[]{"Prepare a machine over SSH: install the rediacc-gpu-node package (node-agent, docker-gate), detect GPUs and write CDI specs "
                                + "(installing the NVIDIA Container Toolkit when asked), configure every repo daemon of its repos manifest "
                                + "(CDI on, cdi-spec-dirs [/etc/cdi], runc as default runtime), start node-agent and docker-gate, wait until "
                                + "the fleet sees the machine, and print its GPUs.",
                                "Each step prints changed or unchanged; a second run changes nothing. Host keys are checked against "
                                        + "known_hosts; an unknown key is refused with its fingerprint and the command to accept it."},
                        "  rdc machine setup gpu-host-1                      # address from machines: in the config file",
                        "  rdc machine setup gpu-host-1 --host root@10.0.0.5:22 --identity ~/.ssh/id_ed25519",
                        "  rdc machine setup wsl-gpu --install-nvidia-toolkit false",
                        "",
                        "Exit codes: 0 done, 1 unreachable (SSH or a service), 2 usage, 4 refused: setup would remove CDI devices",
                        "that hold grants (each grant and its revoke are listed; --force goes ahead), 5 the fleet does not see the",
                        "machine ready in time, 6 SSH refused (unknown or changed host key, login refused), 7 a step failed on the machine.")
                .addPositional(command.machine).addOption(command.installNvidiaToolkit).addOption(command.host)
                .addOption(command.identity).addOption(command.knownHosts).addOption(command.packageFile)
                .addOption(command.rekey).addOption(command.force).addOption(command.wait);
        return Commands.withStandardHelpOptions(command.spec);
    }

    @Override
    public Integer call() {
        Session session = Session.of(spec);
        String name = MachineNames.valid(machine.getValue());
        String installNvidiaToolkit = this.installNvidiaToolkit.getValue();
        String host = this.host.getValue();
        Path identity = this.identity.getValue();
        Path knownHosts = this.knownHosts.getValue();
        // not given: node-agent prepare repeats the machine's saved choice, so a plain re-run keeps a hand-set false
        if (installNvidiaToolkit != null && !List.of("auto", "true", "false").contains(installNvidiaToolkit)) {
            throw Failure.usage("--install-nvidia-toolkit must be auto, true or false, not \"" + installNvidiaToolkit + "\"");
        }
        Duration waitFor = CommandInput.wait(wait.<String>getValue());
        ConfigFile.MachineEntry entry = session.configFile().machines().get(name);
        String address = host != null ? host : entry == null ? null : entry.host();
        if (address == null) {
            throw Failure.usage("no SSH address for machine " + name + ": pass --host user@addr[:port], or add it to "
                    + session.configPath() + " as machines: {" + name + ": {host: root@addr}}");
        }
        Path id = identity != null ? identity : entry == null || entry.identity() == null ? null : Path.of(entry.identity());
        Path known = knownHosts != null ? knownHosts : entry == null || entry.knownHosts() == null ? null : Path.of(entry.knownHosts());
        String root = entry == null || entry.root() == null ? "/" : entry.root();
        String searchPath = entry == null ? null : entry.path();
        Ssh ssh = new Ssh(SshTarget.parse(address, id, known));
        // the package is found (and read) before anything happens on the machine
        DebPackage machinePackage = DebPackage.locate(packageFile.<Path>getValue());

        session.out().println("setup of " + name + " over SSH (" + ssh.target() + ")");
        session.out().flush();
        SetupRun run = new SetupRun(session, name, ssh, root, searchPath, installNvidiaToolkit, waitFor);
        for (SetupStep step : SetupSteps.all(machinePackage, Commands.isSet(rekey), Commands.isSet(force))) {
            step.run(run);
        }
        return ExitCodes.OK;
    }
}
