package io.rediacc.gpu.gate.proxy;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.DaemonStatus;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.GateStatus;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.gate.daemon.DaemonChecks;
import io.rediacc.gpu.gate.service.GateLifecycle;
import io.rediacc.gpu.gate.support.Await;
import io.rediacc.gpu.gate.support.DockerCli;
import io.rediacc.gpu.gate.support.GateTestResource;
import io.rediacc.gpu.gate.support.GrantsTopic;
import io.rediacc.gpu.standin.StandInDockerd;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import jakarta.inject.Inject;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.net.InetSocketAddress;
import java.time.Duration;
import java.util.List;
import java.util.function.Predicate;

import static io.rediacc.gpu.gate.support.GateTestResource.FORK;
import static io.rediacc.gpu.gate.support.GateTestResource.FORK_GUID;
import static io.rediacc.gpu.gate.support.GateTestResource.MACHINE;
import static io.rediacc.gpu.gate.support.GateTestResource.REPO;
import static io.rediacc.gpu.gate.support.GateTestResource.REPO_GUID;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;
import static org.hamcrest.Matchers.containsString;

/**
 * The daemon verified, through the gate as deployed (its defaults: checks every minute, every 2 s
 * while a daemon is not fit, CDI spec dir /etc/cdi): a repo whose daemon's GET /info shows an
 * nvidia default runtime or other CDI spec dirs gets 503 on device requests, naming the daemon.json
 * fix, and so do its creates, starts, exec, cp, export, commit and update (reads and the other repo pass); the state goes into gpu.gate-status.v1
 * and the metrics. The minute tick is forced with {@link DaemonChecks#checkNow}; recovery and
 * reconnect come from the gate's own retries.
 */
@QuarkusTest
@QuarkusTestResource(KafkaTestResource.class)
@QuarkusTestResource(GateTestResource.class)
class DaemonVerificationThroughGateTest {

    @Inject
    GateLifecycle lifecycle;

    private StandInDockerd daemon;
    private DockerCli docker;

    @BeforeEach
    void connect() {
        daemon = GateTestResource.daemon();
        daemon.clear();
        InetSocketAddress gate = (InetSocketAddress) lifecycle.gate().boundAddress(REPO).orElseThrow();
        docker = new DockerCli("tcp://127.0.0.1:" + gate.getPort());
    }

    @AfterEach
    void fixed() {
        daemon.resetInfo();
        GateTestResource.forkDaemon().resetInfo();
        Await.until("both daemons verified again", Duration.ofSeconds(20), () -> allOk(lifecycle.gate().daemons().statuses()));
    }

    private static boolean allOk(List<DaemonStatus> daemons) {
        return daemons.size() == 2 && daemons.stream().allMatch(d -> DaemonStatus.OK.equals(d.state()));
    }

    private DaemonStatus state(String guid) {
        return lifecycle.gate().daemons().status(guid);
    }

    private void grants(String... devices) {
        long version = GrantsTopic.nextVersion();
        GrantsTopic.publish(MACHINE, version, java.util.stream.Stream.of(devices)
                .map(d -> GrantsTopic.grant(REPO_GUID, REPO, d)).toArray(io.rediacc.gpu.contracts.events.Grant[]::new));
        Await.until("grant version " + version + " applied", Duration.ofSeconds(20),
                () -> lifecycle.gate().grants().state().version() >= version);
    }

    private static GateStatus awaitStatus(Predicate<GateStatus> what) {
        ConsumerRecord<String, byte[]> record = GrantsTopic.await(Topics.GATE_STATUS,
                r -> r.value() != null && what.test(EventJson.fromBytes(r.value(), GateStatus.class)), Duration.ofSeconds(20));
        assertThat(record).as("a matching record on " + Topics.GATE_STATUS).isNotNull();
        return EventJson.fromBytes(record.value(), GateStatus.class);
    }

    @Test
    void everyDaemonIsVerifiedAtStartAndReportedOk() {
        Await.until("daemons verified at start", Duration.ofSeconds(20), () -> allOk(lifecycle.gate().daemons().statuses()));

        GateStatus status = awaitStatus(s -> allOk(s.daemons()));
        assertThat(status.daemons()).extracting(DaemonStatus::repoName).containsExactly(REPO, FORK);
        assertThat(DaemonStatus.summary(status.daemons())).isEqualTo("ok");
        assertThat(lifecycle.gate().daemons().dockerRootDir(REPO_GUID)).contains("/var/lib/docker");
        given().get("/q/metrics").then().statusCode(200)
                .body(containsString("gate_daemon_verified{repo=\"" + REPO + "\"} 1.0"))
                .body(containsString("gate_daemons_unverified 0.0"));
    }

    @Test
    void aNvidiaDefaultRuntimeRefusesDeviceRequestsWith503UntilTheDaemonIsFixed() {
        grants("nvidia.com/gpu=0");
        daemon.setInfo("nvidia", List.of("/etc/cdi"), "/var/lib/docker");

        DaemonStatus found = lifecycle.gate().daemons().checkNow(REPO_GUID).join();

        assertThat(found.state()).isEqualTo(DaemonStatus.MISCONFIGURED);
        DockerCli.Result refused = docker.run("run", "--device", "nvidia.com/gpu=0", "busybox", "true");
        assertThat(refused.ok()).as(refused.toString()).isFalse();
        assertThat(refused.stderr()).contains("Docker daemon of repo " + REPO + " on machine " + MACHINE + " is misconfigured")
                .contains("DefaultRuntime is \"nvidia\"").contains("\"default-runtime\": \"runc\"");
        assertThat(daemon.saw("POST", "/containers/create")).isFalse();
        // Not only device requests: whatever makes, starts or enters a container is refused with the fix.
        String existing = daemon.addContainer("existing", "{\"Image\":\"busybox\",\"HostConfig\":{}}");
        List<DockerCli.Result> refusedAll = List.of(
                docker.run("run", "--name", "no-device", "busybox", "true"),
                docker.run("start", "existing"),
                docker.run("restart", "existing"),
                docker.run("exec", "existing", "true"),
                docker.run("cp", "existing:/etc/hostname", "-"),
                docker.run("export", "existing"),
                docker.run("commit", "existing", "img"),
                docker.run("update", "--memory", "64m", "existing"));
        for (DockerCli.Result r : refusedAll) {
            assertThat(r.ok()).as(r.toString()).isFalse();
            assertThat(r.stderr()).as(r.toString()).contains("is misconfigured").contains("\"default-runtime\": \"runc\"");
        }
        assertThat(daemon.saw("POST", "/containers/create")).isFalse();
        assertThat(daemon.startedIds()).doesNotContain(existing);
        assertThat(docker.run("inspect", "existing").ok()).as("reading requests still pass").isTrue();
        assertThat(state(FORK_GUID).state()).isEqualTo(DaemonStatus.OK);
        GateStatus reported = awaitStatus(s -> s.daemons().stream().anyMatch(d -> REPO.equals(d.repoName())
                && DaemonStatus.MISCONFIGURED.equals(d.state())));
        assertThat(DaemonStatus.summary(reported.daemons())).isEqualTo(REPO + " misconfigured");
        given().get("/q/metrics").then().body(containsString("gate_daemon_verified{repo=\"" + REPO + "\"} 0.0"));

        daemon.resetInfo(); // the operator fixes daemon.json and restarts the daemon

        Await.until("the fixed daemon verified by the gate's retries", Duration.ofSeconds(20),
                () -> DaemonStatus.OK.equals(state(REPO_GUID).state()));
        DockerCli.Result admitted = docker.run("run", "--device", "nvidia.com/gpu=0", "--name", "after-fix", "busybox", "true");
        assertThat(admitted.ok()).as(admitted.toString()).isTrue();
    }

    @Test
    void cdiSpecDirsOtherThanTheProductsAreAMisconfiguration() {
        grants("nvidia.com/gpu=0");
        daemon.setInfo("runc", List.of("/etc/cdi", "/var/run/cdi"), "/var/lib/docker"); // Docker's default

        assertThat(lifecycle.gate().daemons().checkNow(REPO_GUID).join().state()).isEqualTo(DaemonStatus.MISCONFIGURED);
        DockerCli.Result refused = docker.run("run", "--device", "nvidia.com/gpu=0", "busybox", "true");
        assertThat(refused.stderr()).contains("CDISpecDirs is [\"/etc/cdi\", \"/var/run/cdi\"]")
                .contains("\"cdi-spec-dirs\": [\"/etc/cdi\"]");

        daemon.setInfo("runc", null, "/var/lib/docker"); // a daemon before API 1.44 does not report them
        assertThat(lifecycle.gate().daemons().checkNow(REPO_GUID).join().state()).isEqualTo(DaemonStatus.OK);
    }

    @Test
    void anUnreachableDaemonIsReportedAndVerifiedAgainWhenItComesBack() {
        GateTestResource.stopForkDaemon();

        assertThat(lifecycle.gate().daemons().checkNow(FORK_GUID).join().state()).isEqualTo(DaemonStatus.UNREACHABLE);
        GateStatus reported = awaitStatus(s -> s.daemons().stream().anyMatch(d -> FORK.equals(d.repoName())
                && DaemonStatus.UNREACHABLE.equals(d.state())));
        assertThat(DaemonStatus.summary(reported.daemons())).isEqualTo(FORK + " unreachable");

        StandInDockerd back = GateTestResource.startForkDaemon();
        back.setInfo("nvidia", List.of("/etc/cdi"), "/data"); // came back misconfigured
        Await.until("the daemon checked on reconnect", Duration.ofSeconds(20),
                () -> DaemonStatus.MISCONFIGURED.equals(state(FORK_GUID).state()));
        back.resetInfo();
        Await.until("and verified once fixed", Duration.ofSeconds(20), () -> DaemonStatus.OK.equals(state(FORK_GUID).state()));
    }
}
