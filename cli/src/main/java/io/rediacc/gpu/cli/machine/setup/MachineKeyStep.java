package io.rediacc.gpu.cli.machine.setup;

import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.failure.Failure;
import io.rediacc.gpu.cli.client.Reply;
import io.rediacc.gpu.cli.ssh.Ssh;
import io.rediacc.gpu.contracts.api.RegisteredMachineKey;

/**
 * The machine's key: {@code node-agent key} there makes it when missing and prints its public half,
 * which is registered with grant-service and inventory-service (the operator's word is the trust:
 * only records signed by this key speak for the machine; docs/SECURITY.md, "Signed records"). Runs
 * before prepare starts the services, so that their first records already count. Changed when newly
 * registered (or re-keyed with {@code --rekey}), unchanged when already registered.
 */
final class MachineKeyStep implements SetupStep {

    private final boolean rekey;

    MachineKeyStep(boolean rekey) {
        this.rekey = rekey;
    }

    @Override
    public void run(SetupRun run) {
        String name = run.machine();
        String[] key = {null};
        Ssh.Result made = run.ssh().run("JDK_JAVA_OPTIONS='-XX:TieredStopAtLevel=1 -XX:+UseSerialGC' "
                + Ssh.quote(run.hostPath(PrepareStep.NODE_AGENT)) + " key --root " + Ssh.quote(run.root()), line -> {
            if (line.startsWith("@public-key ")) {
                key[0] = line.substring(line.indexOf(' ') + 1).strip();
            } else {
                run.progress(line);
            }
        });
        if (!made.ok() || key[0] == null) {
            throw new Failure(ExitCodes.MACHINE_FAILED, "machine key: failed - node-agent key on " + name + " (exit "
                    + made.exitCode() + "): " + SetupRun.lastLines(made.stderr()));
        }
        String reason = rekey ? "rdc machine setup --rekey" : "rdc machine setup";
        // both services verify records with their own copy of the registration (docs/ARCHITECTURE.md, "Machine keys")
        RegisteredMachineKey atGrants = registered(run.session().grants().registerKey(name, key[0], rekey, reason), name);
        RegisteredMachineKey atInventory = registered(run.session().inventory().registerKey(name, key[0], rekey, reason), name);
        String id = atGrants.keyId();
        boolean changed = atGrants.changed() || atInventory.changed();
        String previous = atGrants.previousKeyId() != null ? atGrants.previousKeyId() : atInventory.previousKeyId();
        if (!changed) {
            run.progress("key registration: unchanged - key " + id + " is " + name + "'s registered key");
        } else if (previous != null) {
            run.progress("key registration: changed - RE-KEYED " + name + ": key " + id + " replaces " + previous + " (audited)");
        } else {
            run.progress("key registration: changed - registered key " + id + " for " + name
                    + " with grant-service and inventory-service");
        }
    }

    private static RegisteredMachineKey registered(Reply r, String name) {
        if (r.status() == 409) {
            throw new Failure(ExitCodes.MACHINE_FAILED, "key registration: refused by " + r.service() + " - " + r.error().line()
                    + "; run rdc machine setup " + name + " --rekey only if the machine was reinstalled on purpose");
        }
        return r.orFail().as(RegisteredMachineKey.class);
    }
}
