package io.rediacc.gpu.cli.machine.setup;

import io.rediacc.gpu.cli.ExitCodes;
import io.rediacc.gpu.cli.Failure;
import io.rediacc.gpu.cli.ssh.Ssh;

import java.time.Instant;

/**
 * {@code node-agent prepare} on the machine, from the package just installed: setup (GPUs, toolkit,
 * CDI specs, inventory), every repo daemon's daemon.json, the persistenced socket, the services.
 * Its step lines are passed through; its {@code @}-lines tell the later steps what to wait for.
 */
final class PrepareStep implements SetupStep {

    /** Where the package puts node-agent's launcher. */
    static final String NODE_AGENT = "/usr/lib/rediacc-gpu-node/bin/node-agent";

    @Override
    public void run(SetupRun run) {
        StringBuilder cmd = new StringBuilder();
        if (run.searchPath() != null) {
            cmd.append("AGENT_PATH=").append(Ssh.quote(run.searchPath())).append(' ');
        }
        // a one-off JVM: C1 only and the serial collector start it faster
        cmd.append("JDK_JAVA_OPTIONS='-XX:TieredStopAtLevel=1 -XX:+UseSerialGC' ")
                .append(Ssh.quote(run.hostPath(NODE_AGENT))).append(" prepare --root ").append(Ssh.quote(run.root()))
                .append(" --install-nvidia-toolkit ").append(run.installNvidiaToolkit());
        String[] reported = {null};
        Ssh.Result prepared = run.ssh().run(cmd.toString(), line -> {
            if (line.startsWith("@inventory-generated-at ")) {
                run.inventoryGeneratedAt = Instant.parse(value(line));
            } else if (line.startsWith("@machine ")) {
                reported[0] = value(line);
            } else if (line.startsWith("@repos ")) {
                run.repos = Integer.parseInt(value(line));
            } else if (line.startsWith("@public-key ")) {
                // prepare's own machine-key step says it too; MachineKeyStep registered that key already
            } else {
                run.progress(line);
            }
        });
        String name = run.machine();
        if (prepared.exitCode() == 1) {
            throw new Failure(ExitCodes.MACHINE_FAILED, "setup of " + name + " is not complete: a step on the machine failed"
                    + " or refused (see its line above); fix that and run rdc machine setup " + name + " again");
        }
        if (!prepared.ok()) {
            throw new Failure(ExitCodes.MACHINE_FAILED, "node-agent prepare failed on " + name + " (exit " + prepared.exitCode()
                    + "): " + SetupRun.lastLines(prepared.stderr()));
        }
        if (reported[0] != null && !reported[0].equals(name)) {
            throw new Failure(ExitCodes.MACHINE_FAILED, "the machine at " + run.ssh().target() + " reports itself as " + reported[0]
                    + ", not " + name + " (machine: in its repos manifest, else its host name); run rdc machine setup "
                    + reported[0] + ", or fix the name there");
        }
    }

    private static String value(String line) {
        return line.substring(line.indexOf(' ') + 1).strip();
    }
}
