package io.rediacc.gpu.cli.machine.setup;

import io.rediacc.gpu.cli.client.Reply;
import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.failure.Failure;
import io.rediacc.gpu.cli.ssh.Ssh;
import io.rediacc.gpu.contracts.api.MachineKafkaUser;
import io.rediacc.gpu.contracts.kafka.KafkaAccess;
import io.rediacc.gpu.contracts.kafka.MachineKafkaEnv;

/**
 * The machine's own Kafka user, {@code machine-<name>} (docs/SECURITY.md, "Kafka: one user per machine"): the
 * password kept in {@value MachineKafkaEnv#PATH} on the machine (made here when it holds none) is sent to
 * inventory-service, which creates or updates the user with a machine's ACLs and quota; the file (0600, root)
 * is written when it changed. node-agent and docker-gate read it (their units' {@code EnvironmentFile=}). Where
 * inventory-service does not manage Kafka users (Strimzi owns them), the step says so and changes nothing.
 * Runs before prepare starts the services, so their first login already works.
 */
final class KafkaUserStep implements SetupStep {

    @Override
    public void run(SetupRun run) {
        String name = run.machine();
        String principal = KafkaAccess.machinePrincipal(name);
        String file = run.hostPath(MachineKafkaEnv.PATH);
        StringBuilder there = new StringBuilder();
        run.ssh().run("cat " + Ssh.quote(file) + " 2>/dev/null; true", l -> there.append(l).append('\n'));
        MachineKafkaEnv.Login login = MachineKafkaEnv.parse(there.toString())
                .filter(l -> l.username().equals(principal))
                .orElseGet(() -> new MachineKafkaEnv.Login(principal, MachineKafkaEnv.newPassword()));
        Reply r = run.session().inventory().putKafkaUser(name, login.password());
        if (r.status() == 409 && "kafka-users-not-managed".equals(r.error().error())) {
            run.progress("kafka user: unchanged - inventory-service does not manage Kafka users; " + principal
                    + " and its password come from your cluster's user management (deploy/kubernetes/machine-kafka-user.yaml)");
            return;
        }
        MachineKafkaUser user = r.orFail().as(MachineKafkaUser.class);
        String text = MachineKafkaEnv.render(login);
        boolean fileChanged = !there.toString().equals(text);
        if (fileChanged) {
            String dir = file.substring(0, file.lastIndexOf('/'));
            Ssh.Result w = run.ssh().run("umask 077 && mkdir -p " + Ssh.quote(dir) + " && printf '%s' " + Ssh.quote(text)
                    + " > " + Ssh.quote(file + ".new") + " && chmod 0600 " + Ssh.quote(file + ".new") + " && mv "
                    + Ssh.quote(file + ".new") + " " + Ssh.quote(file), l -> { });
            if (!w.ok()) {
                throw new Failure(ExitCodes.MACHINE_FAILED, "kafka user: failed - cannot write " + MachineKafkaEnv.PATH + ": "
                        + SetupRun.lastLines(w.stderr()));
            }
        }
        if (!fileChanged && user.existed()) {
            run.progress("kafka user: unchanged - " + principal + " logs in with the password in " + MachineKafkaEnv.PATH);
        } else {
            run.progress("kafka user: changed - " + principal + (user.existed() ? " updated" : " created")
                    + " (writes inventory, gate status and decisions, reads grants, own quota)"
                    + (fileChanged ? "; wrote " + MachineKafkaEnv.PATH + " (0600)" : ""));
        }
    }
}
