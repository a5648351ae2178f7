package io.rediacc.gpu.gate.proxy;

import io.rediacc.gpu.contracts.events.DaemonStatus;
import io.rediacc.gpu.dockerd.BaseImage;
import io.rediacc.gpu.dockerd.Dockerd;
import io.rediacc.gpu.gate.service.Gate;
import io.rediacc.gpu.gate.support.Await;
import io.rediacc.gpu.gate.support.DockerCli;
import io.rediacc.gpu.gate.support.GrantsTopic;
import io.rediacc.gpu.gate.support.StandaloneGates;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.rediacc.gpu.testsupport.RealDockerd;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The daemon verified, against a real dockerd: a repo daemon started with CDI spec directories
 * other than the machine's (here: its own plus a second one, as Docker's default adds
 * /var/run/cdi) gets 503 on device requests through the gate, naming the daemon.json fix, while
 * its other requests run; restarted with the right directories it is verified again by the
 * gate's retries and the granted device is attached.
 */
class RealDaemonVerificationTest {

    @RegisterExtension
    static final RealDockerd machine = RealDockerd.withNvidiaCards(1);

    private static final String MACHINE = "m-real-verify";
    private static final String GUID = "55555555-5555-4555-8555-555555555555";
    private static StandaloneGates gates;
    private static Gate gate;
    private static Dockerd repoDaemon;

    @AfterAll
    static void stop() {
        if (gate != null) {
            gate.close();
        }
        if (gates != null) {
            gates.close();
        }
        if (repoDaemon != null) {
            repoDaemon.close();
        }
    }

    @Test
    void aDaemonWithOtherCdiSpecDirsGets503OnDeviceRequestsUntilRestartedRight() throws Exception {
        KafkaTestResource.broker().restart();
        Path dir = Files.createTempDirectory("real-verify");
        Path daemonDir = dir.resolve("daemon");
        Path socket = dir.resolve("run/docker.sock");
        Path extraSpecs = Files.createDirectories(dir.resolve("var-run-cdi"));
        repoDaemon = Dockerd.start(machine.kit(), daemonDir, socket, List.of(machine.cdiDir(), extraSpecs));
        BaseImage.importInto(repoDaemon, machine.cards());
        Path manifest = dir.resolve("repos.yaml");
        Files.writeString(manifest, """
                machine: %s
                repos:
                  - name: verified
                    guid: %s
                    listen: unix://%s
                    daemon: unix://%s
                """.formatted(MACHINE, GUID, dir.resolve("gate.sock"), socket));
        gates = new StandaloneGates();
        gate = gates.start(manifest, dir.resolve("state"), "gate-verify", machine.cdiDir());
        DockerCli docker = new DockerCli("unix://" + dir.resolve("gate.sock"));
        long version = GrantsTopic.nextVersion();
        GrantsTopic.publish(MACHINE, version, GrantsTopic.grant(GUID, "verified", "nvidia.com/gpu=0"));
        Await.until("grants applied", Duration.ofSeconds(30), () -> gate.grants().state().version() >= version);
        Await.until("the daemon checked at start", Duration.ofSeconds(30),
                () -> !DaemonStatus.UNCHECKED.equals(gate.daemons().status(GUID).state()));

        assertThat(gate.daemons().status(GUID).state()).isEqualTo(DaemonStatus.MISCONFIGURED);
        DockerCli.Result refused = docker.run("run", "--rm", "--device", "nvidia.com/gpu=0", BaseImage.TAG, "nvidia-smi", "-L");
        assertThat(refused.ok()).as(refused.toString()).isFalse();
        assertThat(refused.stderr()).contains("is misconfigured: CDISpecDirs is [\"" + machine.cdiDir() + "\", \"" + extraSpecs + "\"]")
                .contains("\"cdi-spec-dirs\": [\"" + machine.cdiDir() + "\"]");
        DockerCli.Result plain = docker.run("run", "--rm", BaseImage.TAG, "true");
        assertThat(plain.ok()).as("a misconfigured daemon refuses creates without devices too: " + plain).isFalse();
        assertThat(plain.stderr()).contains("container create is refused now").contains("is misconfigured")
                .contains("\"cdi-spec-dirs\": [\"" + machine.cdiDir() + "\"]");
        assertThat(docker.run("images").ok()).as("reading requests still pass").isTrue();

        repoDaemon.close(); // the operator fixes daemon.json and restarts the daemon
        repoDaemon = Dockerd.start(machine.kit(), daemonDir, socket, List.of(machine.cdiDir()));

        Await.until("the restarted daemon verified", Duration.ofSeconds(30),
                () -> DaemonStatus.OK.equals(gate.daemons().status(GUID).state()));
        DockerCli.Result admitted = docker.run("run", "--rm", "--device", "nvidia.com/gpu=0", BaseImage.TAG, "nvidia-smi", "-L");
        assertThat(admitted.ok()).as(admitted.toString()).isTrue();
        assertThat(admitted.stdout()).isEqualTo(machine.nvidiaSmiL(0));
    }
}
