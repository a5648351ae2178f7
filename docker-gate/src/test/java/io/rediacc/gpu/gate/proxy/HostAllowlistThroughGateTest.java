package io.rediacc.gpu.gate.proxy;

import io.quarkus.test.common.QuarkusTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.gate.service.GateLifecycle;
import io.rediacc.gpu.gate.support.DockerCli;
import io.rediacc.gpu.gate.support.GateTestResource;
import io.rediacc.gpu.gate.support.RawHttp;
import io.rediacc.gpu.standin.StandInDockerd;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import jakarta.inject.Inject;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;

import java.io.IOException;
import java.net.InetSocketAddress;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import static io.rediacc.gpu.gate.support.GateTestResource.REPO;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Issue 13, items 1-6, through the gate as deployed (the application's own start-up, the manifest
 * of {@link GateTestResource}): the real docker CLI where it has a spelling, raw HTTP otherwise.
 * Every refused request is answered with a Docker error and never reaches the daemon; binds under
 * the repo's hostPaths, named volumes and tmpfs are admitted.
 */
@QuarkusTest
@QuarkusTestResource(KafkaTestResource.class)
@QuarkusTestResource(GateTestResource.class)
class HostAllowlistThroughGateTest {

    @Inject
    GateLifecycle lifecycle;

    private StandInDockerd daemon;
    private DockerCli docker;
    private InetSocketAddress gate;

    @BeforeEach
    void connect() {
        daemon = GateTestResource.daemon();
        daemon.clear();
        gate = (InetSocketAddress) lifecycle.gate().boundAddress(REPO).orElseThrow();
        docker = new DockerCli("tcp://127.0.0.1:" + gate.getPort());
    }

    private static String mount() {
        return GateTestResource.repoMount().toString();
    }

    static Stream<Arguments> refusedRuns() {
        String dir = GateTestResource.dir().toString();
        return Stream.of(
                // 1. the daemon itself
                Arguments.of("host docker socket", List.of("-v", "/var/run/docker.sock:/var/run/docker.sock")),
                Arguments.of("host docker socket via /run", List.of("-v", "/run/docker.sock:/var/run/docker.sock")),
                Arguments.of("containerd socket", List.of("-v", "/run/containerd/containerd.sock:/c.sock")),
                Arguments.of("the repo daemon's own socket (fork)", List.of("-v", dir + "/run/fork-daemon.sock:/d.sock")),
                Arguments.of("docker socket as a bind mount", List.of("--mount", "type=bind,source=/run/docker.sock,target=/s")),
                Arguments.of("docker socket through inline volume options", List.of("--mount",
                        "type=volume,target=/r,volume-opt=type=none,volume-opt=o=bind,volume-opt=device=/run")),
                // 2. other repos' gate sockets
                Arguments.of("the gate sockets' directory", List.of("-v", dir + "/gate:/g")),
                Arguments.of("/run/rediacc", List.of("-v", "/run/rediacc:/r")),
                // 3. the gate's own files
                Arguments.of("the manifest's directory", List.of("-v", dir + "/etc:/m")),
                Arguments.of("the gate's state", List.of("--mount", "type=bind,source=" + dir + "/state,target=/s")),
                Arguments.of("/etc/rediacc", List.of("-v", "/etc/rediacc:/e")),
                // 4. CDI specs
                Arguments.of("/etc/cdi", List.of("-v", "/etc/cdi:/cdi")),
                Arguments.of("/var/run/cdi", List.of("-v", "/var/run/cdi:/cdi")),
                // 5. plugins and drivers
                Arguments.of("legacy plugin sockets", List.of("-v", "/run/docker/plugins:/p")),
                Arguments.of("legacy plugin specs", List.of("-v", "/usr/lib/docker/plugins:/p")),
                Arguments.of("a volume driver not listed", List.of("--volume-driver", "evil", "-v", "data:/data")),
                Arguments.of("a log driver not listed", List.of("--log-driver", "evil")),
                // the repo daemon's data root and configuration, inside the repo's own mount
                Arguments.of("its daemon's data root", List.of("-v", GateTestResource.repoMount() + "/.rediacc/docker/data:/d")),
                Arguments.of("its daemon's configuration", List.of("-v", GateTestResource.repoMount() + "/.rediacc:/c")),
                // anything else outside the allowlist
                Arguments.of("/etc", List.of("-v", "/etc:/host-etc")),
                Arguments.of("/lib/modules", List.of("-v", "/lib/modules:/m:ro")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedRuns")
    void refusedRunsNeverReachTheDaemon(String what, List<String> flags) {
        List<String> args = new ArrayList<>(List.of("run", "--rm"));
        args.addAll(flags);
        args.addAll(List.of("busybox", "true"));

        DockerCli.Result run = docker.run(args.toArray(String[]::new));

        assertThat(run.ok()).as(run.toString()).isFalse();
        assertThat(run.stderr()).as(run.toString()).contains("Error response from daemon").contains("is refused");
        assertThat(daemon.saw("POST", "/containers/create")).isFalse();
    }

    @Test
    void refusalNamesThePathAndTheManifestKeyThatWouldAllowIt() {
        DockerCli.Result run = docker.run("run", "-v", "/srv/shared:/shared", "busybox", "true");

        assertThat(run.ok()).isFalse();
        assertThat(run.stderr()).contains("/srv/shared").contains("hostPaths of repo gpu-a in " + GateTestResource.manifest());
    }

    static Stream<Arguments> refusedVolumes() {
        return Stream.of(
                Arguments.of("bind of the docker socket", List.of("--opt", "type=none", "--opt", "o=bind", "--opt", "device=/var/run/docker.sock")),
                Arguments.of("nfs with o=bind", List.of("--opt", "type=nfs", "--opt", "o=bind,addr=127.0.0.1", "--opt", "device=/run")),
                Arguments.of("CDI specs as a device", List.of("--opt", "type=none", "--opt", "o=bind", "--opt", "device=/etc/cdi")),
                Arguments.of("cifs escape (item 6)", List.of("--opt", "type=cifs", "--opt", "o=bind",
                        "--opt", "device=//localhost/..%2F..%2Fproc%2F1%2Froot")),
                Arguments.of("cifs share", List.of("--opt", "type=cifs", "--opt", "device=//localhost/..%2F..%2Fproc%2F1%2Froot")),
                Arguments.of("block device file system", List.of("--opt", "type=ext4", "--opt", "device=" + mount() + "/disk.img")),
                Arguments.of("overlay", List.of("--opt", "type=overlay", "--opt", "o=lowerdir=/etc", "--opt", "device=overlay")),
                Arguments.of("a driver not listed", List.of("--driver", "vieux/sshfs")));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedVolumes")
    void refusedVolumeCreatesNeverReachTheDaemon(String what, List<String> flags) {
        List<String> args = new ArrayList<>(List.of("volume", "create"));
        args.addAll(flags);
        args.add("v1");

        DockerCli.Result create = docker.run(args.toArray(String[]::new));

        assertThat(create.ok()).as(create.toString()).isFalse();
        assertThat(create.stderr()).contains("Error response from daemon").contains("is refused");
        assertThat(daemon.saw("POST", "/volumes/create")).isFalse();
    }

    static Stream<Arguments> refusedPluginCommands() {
        return Stream.of(
                Arguments.of(List.of("plugin", "set", "vieux/sshfs", "sshkey.source=/run")),
                Arguments.of(List.of("plugin", "enable", "vieux/sshfs")),
                Arguments.of(List.of("plugin", "disable", "vieux/sshfs")),
                Arguments.of(List.of("plugin", "rm", "vieux/sshfs")),
                Arguments.of(List.of("plugin", "push", "vieux/sshfs")));
    }

    @ParameterizedTest(name = "docker {0}")
    @MethodSource("refusedPluginCommands")
    void pluginManagementIsRefused(List<String> args) {
        DockerCli.Result r = docker.run(args.toArray(String[]::new));

        assertThat(r.ok()).as(r.toString()).isFalse();
        assertThat(r.stderr()).contains("plugin management");
        assertThat(GateTestResource.clientRequests(daemon)).noneMatch(x -> x.path().contains("/plugins"));
    }

    @Test
    void pluginCreateFromALocalDirectoryIsRefused() throws IOException {
        Path plugin = Files.createTempDirectory("plugin");
        Files.createDirectories(plugin.resolve("rootfs"));
        Files.writeString(plugin.resolve("config.json"), "{\"Interface\":{\"Types\":[\"docker.volumedriver/1.0\"],\"Socket\":\"p.sock\"},"
                + "\"Mounts\":[{\"Source\":\"/\",\"Destination\":\"/host\",\"Type\":\"bind\",\"Options\":[\"rbind\"]}]}");

        DockerCli.Result r = docker.run("plugin", "create", "evil", plugin.toString());

        assertThat(r.ok()).as(r.toString()).isFalse();
        assertThat(r.stderr()).contains("plugin management");
        assertThat(daemon.saw("POST", "/plugins/create")).isFalse();
    }

    static Stream<Arguments> refusedRaw() {
        String socketMount = "{\"Name\":\"web\",\"TaskTemplate\":{\"ContainerSpec\":{\"Image\":\"busybox\",\"Mounts\":[{\"Type\":\"bind\","
                + "\"Source\":\"/var/run/docker.sock\",\"Target\":\"/s\"}]}}}";
        String volumeMount = "{\"Name\":\"web\",\"TaskTemplate\":{\"ContainerSpec\":{\"Image\":\"busybox\",\"Mounts\":[{\"Type\":\"volume\","
                + "\"Target\":\"/s\",\"VolumeOptions\":{\"DriverConfig\":{\"Name\":\"local\",\"Options\":{\"type\":\"none\",\"o\":\"bind\","
                + "\"device\":\"/etc\"}}}}]}}}";
        return Stream.of(
                Arguments.of("swarm service binding the docker socket", "/v1.50/services/create", socketMount),
                Arguments.of("swarm service with a bind-backed volume", "/v1.50/services/create", volumeMount),
                Arguments.of("relative bind source", "/v1.50/containers/create", "{\"Image\":\"busybox\",\"HostConfig\":{\"Binds\":[\"../../etc:/x\"]}}"),
                Arguments.of("unknown mount type", "/v1.50/containers/create",
                        "{\"Image\":\"busybox\",\"HostConfig\":{\"Mounts\":[{\"Type\":\"Bind\",\"Source\":\"/etc\",\"Target\":\"/x\"}]}}"),
                Arguments.of("bind created on demand outside hostPaths (CreateMountpoint; docker CLI 28 has no spelling)",
                        "/v1.50/containers/create", "{\"Image\":\"busybox\",\"HostConfig\":{\"Mounts\":[{\"Type\":\"bind\","
                                + "\"Source\":\"/opt/elsewhere\",\"Target\":\"/x\",\"BindOptions\":{\"CreateMountpoint\":true}}]}}"),
                Arguments.of("plugin pull", "/v1.50/plugins/pull?remote=vieux/sshfs", "[{\"Name\":\"network\",\"Value\":[\"host\"]}]"),
                Arguments.of("plugin upgrade", "/v1.50/plugins/vieux/sshfs/upgrade?remote=vieux/sshfs:next", "[]"),
                Arguments.of("volume create with any driver", "/v1.50/volumes/create", "{\"Name\":\"x\",\"Driver\":\"anything\"}"));
    }

    @ParameterizedTest(name = "{0}")
    @MethodSource("refusedRaw")
    void refusedWithoutACliSpelling(String what, String target, String body) {
        String answer = RawHttp.request(gate, "POST", target, "", body);

        assertThat(RawHttp.status(answer)).as(answer).isEqualTo(403);
        assertThat(answer).contains("is refused");
        assertThat(GateTestResource.clientRequests(daemon)).isEmpty();
    }

    @Test
    void aVolumeCreatedOutsideTheGateAsABindOfTheHostIsRefused() {
        daemon.addVolume("hostroot", "local", Map.of("type", "none", "o", "bind", "device", "/"));

        DockerCli.Result run = docker.run("run", "--rm", "-v", "hostroot:/host", "busybox", "true");
        DockerCli.Result mounted = docker.run("run", "--rm", "--mount", "type=volume,source=hostroot,target=/host", "busybox", "true");

        assertThat(run.ok()).as(run.toString()).isFalse();
        assertThat(run.stderr()).contains("volume hostroot already exists");
        assertThat(mounted.ok()).as(mounted.toString()).isFalse();
        assertThat(daemon.saw("GET", "/volumes/hostroot")).isTrue();
        assertThat(daemon.saw("POST", "/containers/create")).isFalse();
    }

    @Test
    void aSymlinkInsideTheAllowedRootIsJudgedWhereItLeads() throws IOException {
        Path link = GateTestResource.repoMount().resolve("etc-link");
        Files.deleteIfExists(link);
        Files.createSymbolicLink(link, Path.of("/etc"));

        DockerCli.Result run = docker.run("run", "--rm", "-v", link + "/passwd:/p", "busybox", "true");

        assertThat(run.ok()).as(run.toString()).isFalse();
        assertThat(run.stderr()).contains("resolves to /etc/passwd");
        assertThat(daemon.saw("POST", "/containers/create")).isFalse();
    }

    @Test
    void bindsInsideTheAllowlistNamedVolumesAndTmpfsAreAdmitted() throws IOException {
        Files.createDirectories(GateTestResource.repoMount().resolve("app"));

        DockerCli.Result bind = docker.run("run", "--rm", "-v", mount() + "/app:/app", "--mount",
                "type=bind,source=" + mount() + "/app,target=/n,readonly", "busybox", "true");
        String created = RawHttp.request(gate, "POST", "/v1.50/containers/create", "", "{\"Image\":\"busybox\",\"HostConfig\":"
                + "{\"Mounts\":[{\"Type\":\"bind\",\"Source\":\"" + mount() + "/new-dir\",\"Target\":\"/n\","
                + "\"BindOptions\":{\"CreateMountpoint\":true}}]}}");
        DockerCli.Result named = docker.run("run", "--rm", "-v", "data:/data", "--mount", "type=volume,source=cache,target=/c",
                "busybox", "true");
        DockerCli.Result tmpfs = docker.run("run", "--rm", "--tmpfs", "/t", "--mount", "type=tmpfs,target=/u", "busybox", "true");

        assertThat(bind.ok()).as(bind.toString()).isTrue();
        assertThat(named.ok()).as(named.toString()).isTrue();
        assertThat(tmpfs.ok()).as(tmpfs.toString()).isTrue();
        assertThat(RawHttp.status(created)).as(created).isEqualTo(201);
        assertThat(daemon.requests("POST", "/containers/create")).hasSize(4);
        assertThat(daemon.saw("GET", "/volumes/data")).isTrue();
        assertThat(daemon.saw("GET", "/volumes/cache")).isTrue();
    }

    @Test
    void namedVolumeLookupsOfOneClientShareOneDaemonConnection() {
        // Three pipelined creates on one client connection, each naming a volume the gate looks up first.
        StringBuilder pipelined = new StringBuilder();
        for (int i = 0; i < 3; i++) {
            String body = "{\"Image\":\"busybox\",\"HostConfig\":{\"Binds\":[\"pooled" + i + ":/data\"]}}";
            pipelined.append("POST /v1.50/containers/create HTTP/1.1\r\nHost: docker\r\n")
                    .append(i == 2 ? "Connection: close\r\n" : "")
                    .append("Content-Type: application/json\r\nContent-Length: ").append(body.length()).append("\r\n\r\n")
                    .append(body);
        }

        String answers = RawHttp.exchange(gate, pipelined.toString());

        assertThat(RawHttp.statuses(answers)).as(answers).containsExactly(201, 201, 201);
        List<StandInDockerd.Received> lookups = daemon.requests("GET", "/volumes/pooled[0-9]");
        assertThat(lookups).extracting(r -> r.path()).containsExactly("/volumes/pooled0", "/volumes/pooled1", "/volumes/pooled2");
        assertThat(lookups.stream().map(StandInDockerd.Received::connection).distinct()).hasSize(1);
    }

    @Test
    void aVolumeBoundInsideTheAllowlistIsCreatedAndUsed() throws IOException {
        Files.createDirectories(GateTestResource.repoMount().resolve("share"));

        DockerCli.Result create = docker.run("volume", "create", "--opt", "type=none", "--opt", "o=bind",
                "--opt", "device=" + mount() + "/share", "share");
        DockerCli.Result sized = docker.run("volume", "create", "--opt", "size=1G", "quota");
        DockerCli.Result run = docker.run("run", "--rm", "-v", "share:/share", "busybox", "true");

        assertThat(create.ok()).as(create.toString()).isTrue();
        assertThat(sized.ok()).as(sized.toString()).isTrue();
        assertThat(run.ok()).as(run.toString()).isTrue();
        assertThat(daemon.saw("POST", "/containers/create")).isTrue();
    }
}
