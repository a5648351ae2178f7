package io.rediacc.gpu.agent.cli;

import io.rediacc.gpu.agent.config.AgentConfig;
import io.rediacc.gpu.agent.machine.GuardedSetup;
import io.rediacc.gpu.agent.setup.SetupReport;
import io.rediacc.gpu.agent.setup.SetupService;
import io.rediacc.gpu.contracts.events.MachineInventory;
import picocli.CommandLine.Command;

import java.io.PrintWriter;

/** {@code node-agent setup}: one pass of detection and writing, then exit. */
@Command(name = "setup", mixinStandardHelpOptions = true,
        description = "Detect GPUs, install the NVIDIA Container Toolkit when asked, write CDI specs to /etc/cdi and "
                + "/etc/rediacc/gpu/inventory.json, then exit. Safe to run again; run it after driver or hardware changes. "
                + "Refuses, changing nothing, to remove a CDI name that holds a grant (see --guard-grant, --force).",
        exitCodeListHeading = "Exit codes:%n",
        exitCodeList = {"0:done", "1:done, but a toolkit install or spec generation failed (see the summary; inventory.json was written)",
                "2:invalid options, root or machine name (nothing written)",
                "3:the machine's files could not be written (permissions, a file in the way)",
                "4:refused: it would remove CDI device(s) that hold grants (or may: the gate's copy of them does not verify); "
                        + "nothing was changed, the refusal names the grants and the fix"})
public class SetupCommand extends MachinePassCommand {

    public SetupCommand(AgentConfig config, SetupService setup) {
        super(config, setup);
    }

    /** Exit code of a setup that would have removed guarded names and changed nothing. */
    static final int REFUSED = 4;

    @Override
    public Integer call() {
        // the boot-time unit runs this: guarded like prepare, so a reboot never orphans a grant either
        Outcome<GuardedSetup.Outcome> pass = pass((settings, policy) -> GuardedSetup.run(setup, settings, policy,
                guard.guard(settings)));
        if (pass.failed()) {
            return pass.exitCode();
        }
        if (pass.result() instanceof GuardedSetup.Refused refused) {
            err().println("node-agent setup: refused - " + refused.why());
            err().flush();
            return REFUSED;
        }
        GuardedSetup.Done done = (GuardedSetup.Done) pass.result();
        SetupReport report = done.report();
        print(report, out(), err());
        if (!done.orphaned().isEmpty()) {
            err().println("note: orphaned the grants of " + String.join(", ", done.orphaned()) + " (--force): the machine no"
                    + " longer defines them; the gate refuses them until they return or are revoked");
            err().flush();
        }
        return report.failed() ? 1 : 0;
    }

    static void print(SetupReport report, PrintWriter out, PrintWriter err) {
        MachineInventory inv = report.inventory();
        out.printf("machine %s (%s): %d GPU(s)%n", inv.machine(), inv.platform(), inv.gpus().size());
        for (MachineInventory.Gpu g : inv.gpus()) {
            out.printf("  %s %d  %s%s%s%s%s%n", g.vendor(), g.index(), g.name(),
                    g.uuid() == null ? "" : "  " + g.uuid(),
                    g.driverVersion() == null ? "" : "  driver " + g.driverVersion(),
                    g.memoryMiB() == null ? "" : "  " + g.memoryMiB() + " MiB",
                    g.renderNode() == null ? "" : "  " + g.renderNode());
        }
        MachineInventory.ToolkitState t = inv.toolkit();
        out.printf("NVIDIA Container Toolkit: %s%s%s%n", t.state(), t.version() == null ? "" : " " + t.version(),
                t.nvidiaSpec() == null ? "" : " (spec " + t.nvidiaSpec() + ")");
        if (t.detail() != null) {
            out.println("  " + t.detail());
        }
        if (inv.persistencedSocket() != null) {
            out.println("nvidia-persistenced socket: " + inv.persistencedSocket());
        }
        out.printf("CDI devices (%d):%n", inv.cdiDevices().size());
        for (MachineInventory.CdiDeviceInfo d : inv.cdiDevices()) {
            out.printf("  %s  %s%n", d.name(), String.join(",", d.deviceNodes()));
        }
        for (String action : report.actions()) {
            out.println("- " + action);
        }
        for (String p : inv.specProblems()) {
            err.println("spec problem: " + p);
        }
        for (String n : report.notes()) {
            err.println("note: " + n);
        }
        out.flush();
        err.flush();
    }
}
