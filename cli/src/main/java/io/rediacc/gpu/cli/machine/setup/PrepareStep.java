package io.rediacc.gpu.cli.machine.setup;

import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.failure.Failure;
import io.rediacc.gpu.cli.ssh.Ssh;

import io.rediacc.gpu.cli.client.Reply;
import io.rediacc.gpu.contracts.api.MachineGrantsView;

import java.util.List;

/**
 * {@code node-agent prepare} on the machine, from the package just installed: setup (GPUs, toolkit,
 * CDI specs, inventory), every repo daemon's daemon.json, the persistenced socket, the services.
 * Its step lines are passed through; its {@code @}-lines tell the later steps what to wait for.
 */
final class PrepareStep implements SetupStep {

    /** Where the package puts node-agent's launcher. */
    static final String NODE_AGENT = "/usr/lib/rediacc-gpu-node/bin/node-agent";

    private final boolean force;

    PrepareStep(boolean force) {
        this.force = force;
    }

    @Override
    public void run(SetupRun run) {
        GrantsAtRisk grants = machineGrants(run);
        StringBuilder cmd = new StringBuilder();
        if (run.searchPath() != null) {
            cmd.append("AGENT_PATH=").append(Ssh.quote(run.searchPath())).append(' ');
        }
        // a one-off JVM: C1 only and the serial collector start it faster
        cmd.append("JDK_JAVA_OPTIONS='-XX:TieredStopAtLevel=1 -XX:+UseSerialGC' ")
                .append(Ssh.quote(run.hostPath(NODE_AGENT))).append(" prepare --root ").append(Ssh.quote(run.root()));
        if (run.installNvidiaToolkit() != null) { // else prepare repeats the choice saved on the machine
            cmd.append(" --install-nvidia-toolkit ").append(run.installNvidiaToolkit());
        }
        grants.notice(force).ifPresent(line -> run.session().warn(line));
        for (String arg : grants.guardArguments(force)) {
            cmd.append(' ').append(Ssh.quote(arg));
        }
        if (force) {
            cmd.append(" --force");
        }
        PrepareOutput output = new PrepareOutput(run::progress);
        Ssh.Result prepared = run.ssh().run(cmd.toString(), output);
        output.inventoryGeneratedAt().ifPresent(at -> run.inventoryGeneratedAt = at);
        output.repos().ifPresent(n -> run.repos = n);
        String name = run.machine();
        output.judgeGrants(grants, line -> run.session().warn(line));
        if (prepared.exitCode() == 1) {
            throw new Failure(ExitCodes.MACHINE_FAILED, "setup of " + name + " is not complete: a step on the machine failed"
                    + " or refused (see its line above); fix that and run rdc machine setup " + name + " again");
        }
        if (!prepared.ok()) {
            throw new Failure(ExitCodes.MACHINE_FAILED, "node-agent prepare failed on " + name + " (exit " + prepared.exitCode()
                    + "): " + SetupRun.lastLines(prepared.stderr()));
        }
        String reported = output.reportedMachine().orElse(null);
        if (reported != null && !reported.equals(name)) {
            throw new Failure(ExitCodes.MACHINE_FAILED, "the machine at " + run.ssh().target() + " reports itself as " + reported
                    + ", not " + name + " (machine: in its repos manifest, else its host name); run rdc machine setup "
                    + reported + ", or fix the name there");
        }
    }

    /** The machine's grants, so that setup can refuse to orphan them; unreadable (the machine guards) when grant-service cannot say. */
    private static GrantsAtRisk machineGrants(SetupRun run) {
        try {
            Reply reply = run.session().grants().machineGrants(run.machine());
            if (reply.status() == 404) {
                return new GrantsAtRisk(run.machine(), List.of()); // grant-service has never heard of the machine: nothing to orphan
            }
            if (!reply.ok()) {
                return GrantsAtRisk.unreadable(run.machine(), reply.error().line());
            }
            return new GrantsAtRisk(run.machine(), reply.as(MachineGrantsView.class).grants());
        } catch (Failure e) {
            return GrantsAtRisk.unreadable(run.machine(), e.getMessage());
        }
    }
}
