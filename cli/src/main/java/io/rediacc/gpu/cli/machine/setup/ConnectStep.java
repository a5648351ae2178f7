package io.rediacc.gpu.cli.machine.setup;

/** SSH reaches the machine, its host key checked against known_hosts ({@link io.rediacc.gpu.cli.ssh.Ssh} refuses otherwise). */
final class ConnectStep implements SetupStep {

    @Override
    public void run(SetupRun run) {
        run.ssh().run("true", l -> { });
        run.progress("ssh: connected, host key verified");
    }
}
