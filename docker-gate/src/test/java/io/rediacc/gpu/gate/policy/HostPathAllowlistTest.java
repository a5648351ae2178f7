package io.rediacc.gpu.gate.policy;

import static io.rediacc.gpu.gate.policy.PolicyTestKit.POLICY;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.REPO;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.REPO_MOUNT;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.create;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.grants;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.refusal;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.send;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.utf8;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.withHostConfig;
import static org.assertj.core.api.Assertions.assertThat;

import io.rediacc.gpu.contracts.manifest.ManifestLoader;
import io.rediacc.gpu.gate.service.ManifestHostAccess;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Host paths by allowlist (issue items 1-6 at the policy level): only under the repo's
 * {@code hostPaths}, never a protected path even under them, judged as written and as resolved.
 */
class HostPathAllowlistTest {

    private static Verdict bind(String bind) {
        return create(withHostConfig("\"Binds\":[\"" + bind + "\"]"));
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/var/run/docker.sock:/var/run/docker.sock", "/run/docker.sock:/s", "/run/containerd/containerd.sock:/c",
            "/run/rediacc/docker-gpu-a.sock:/s", "/var/run/rediacc:/r", "/run/rediacc/gate:/g", "/run:/run", "/var/run:/r",
            "/etc/cdi:/cdi", "/var/run/cdi:/cdi", "/run/cdi/nvidia.yaml:/x", "/etc/rediacc:/e", "/etc/rediacc/gate/repos.yaml:/m",
            "/etc/docker:/d", "/run/docker/plugins:/p", "/usr/lib/docker/plugins:/p", "/var/lib/rediacc/gate:/s",
            "/var/lib/rediacc/gate/grants-m1.json:/g", "/var/lib/docker:/d", "/var/../run/rediacc/:/r", "/etc:/host-etc",
            "/mnt/rediacc/mounts:/m"})
    void protectedPathsAreRefusedWhateverTheAllowlist(String bind) {
        // /etc and /mnt/rediacc/mounts hold protected paths: refused as their ancestors.
        Refusal r = refusal(bind(bind));
        assertThat(r.status()).isEqualTo(403);
        assertThat(r.rule()).isEqualTo("host-path");
        assertThat(r.message()).contains("which no repo may reach, whatever its hostPaths");
    }

    @Test
    void theRepoDaemonsDataRootAndConfigStayRefusedInsideTheRepoMount() {
        for (String path : List.of(REPO_MOUNT + "/.rediacc/docker/data", REPO_MOUNT + "/.rediacc/docker/config/daemon.json",
                REPO_MOUNT + "/.rediacc", REPO_MOUNT)) {
            Refusal r = refusal(bind(path + ":/x"));
            assertThat(r.rule()).as(path).isEqualTo("host-path");
            assertThat(r.message()).as(path).contains("repo gpu-a's Docker daemon");
        }
        assertThat(bind(REPO_MOUNT + "/app/data:/data")).isEqualTo(new Verdict.Allow());
    }

    @Test
    void aDataRootReportedByTheDaemonIsProtectedFromTheNextRequestOn() {
        ManifestHostAccess access = new ManifestHostAccess(Path.of("/etc/rediacc/gate/repos.yaml"), Path.of("/var/lib/rediacc/gate"),
                ManifestLoader.parse(utf8(PolicyTestKit.MANIFEST_YAML)));
        GatePolicy policy = new GatePolicy(PolicyTestKit.MAX_BODY, access);
        byte[] body = utf8(withHostConfig("\"Binds\":[\"/srv/docker-data/volumes:/v\"]"));
        RequestHead head = PolicyTestKit.post("/v1.50/containers/create", body);
        assertThat(policy.onBody(head, body, REPO, grants())).isEqualTo(new Verdict.Allow());
        access.daemonDataRoot("gpu-a", "/srv/docker-data");
        Refusal r = refusal(policy.onBody(head, body, REPO, grants()));
        assertThat(r.rule()).isEqualTo("host-path");
        assertThat(r.message()).contains("DockerRootDir");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/etc/ssl:/x", "/lib/modules:/m", "/boot:/b", "/home/gpu-b:/x", "/srv2:/x", "/mnt/rediacc/mounts/other:/x",
            "/tmp:/t"})
    void pathsOutsideTheAllowlistAreRefusedNamingTheManifestKey(String bind) {
        Refusal r = refusal(bind(bind));
        assertThat(r.rule()).isEqualTo("host-path-not-allowed");
        assertThat(r.message()).contains("hostPaths of repo gpu-a in /etc/rediacc/gate/repos.yaml")
                .contains(bind.substring(0, bind.indexOf(':')));
    }

    @Test
    void aRepoWithoutHostPathsMayBindNothing() {
        RepoIdentity other = new RepoIdentity("gpu-b", "7f3c2a90-0000-4000-8000-00000000000b", "m1", false);
        byte[] body = utf8(withHostConfig("\"Binds\":[\"/data:/data\"]"));
        Refusal r = refusal(POLICY.onBody(PolicyTestKit.post("/v1.50/containers/create", body), body, other, grants()));
        assertThat(r.rule()).isEqualTo("host-path-not-allowed");
        assertThat(r.message()).contains("it has none");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"../../etc:/x", "a:/x", "x/y:/x", "-v:/x", ".hidden:/x", "~/x:/x"})
    void aRelativeSourceThatIsNoVolumeNameIsRefused(String bind) {
        assertThat(refusal(bind(bind)).rule()).isEqualTo("host-path");
    }

    @Test
    void mountsOfTypeBindAndCreateMountpointAreJudgedToo() {
        Refusal r = refusal(create(withHostConfig("\"Mounts\":[{\"Type\":\"bind\",\"Source\":\"/etc/new\",\"Target\":\"/x\","
                + "\"BindOptions\":{\"CreateMountpoint\":true}}]")));
        assertThat(r.rule()).isEqualTo("host-path-not-allowed");
        assertThat(create(withHostConfig("\"Mounts\":[{\"Type\":\"bind\",\"Source\":\"/srv/new\",\"Target\":\"/x\","
                + "\"BindOptions\":{\"CreateMountpoint\":true}}]"))).isEqualTo(new Verdict.Allow());
    }

    @Test
    void eachAllowedRootIsResolvedOncePerRequestHoweverManyPathsItJudges() {
        java.util.Map<String, Integer> resolved = new java.util.concurrent.ConcurrentHashMap<>();
        HostAccess counting = new HostAccess() {
            @Override
            public List<ProtectedPath> protectedPaths() {
                return PolicyTestKit.HOST_ACCESS.protectedPaths();
            }

            @Override
            public RepoAllowance allowance(RepoIdentity repo) {
                return PolicyTestKit.HOST_ACCESS.allowance(repo);
            }

            @Override
            public java.util.Optional<String> realPath(String path) {
                resolved.merge(path, 1, Integer::sum);
                return PolicyTestKit.HOST_ACCESS.realPath(path);
            }
        };
        GatePolicy policy = new GatePolicy(PolicyTestKit.MAX_BODY, counting);
        byte[] body = utf8(withHostConfig("\"Binds\":[\"/srv/a:/a\",\"/srv/b:/b\",\"/data/c:/c\"],\"Mounts\":[{\"Type\":\"bind\","
                + "\"Source\":\"/home/gpu-a/d\",\"Target\":\"/d\"}]"));
        RequestHead head = PolicyTestKit.post("/v1.50/containers/create", body);

        assertThat(policy.onBody(head, body, REPO, grants())).isEqualTo(new Verdict.Allow());
        assertThat(resolved).containsEntry("/srv", 1).containsEntry("/data", 1).containsEntry("/home/gpu-a", 1)
                .containsEntry("/srv/a", 1).containsEntry("/srv/b", 1);
        // the next request resolves them again: what the host holds may have changed in between
        policy.onBody(head, body, REPO, grants());
        assertThat(resolved).containsEntry("/srv", 2).containsEntry("/srv/a", 2);
    }

    @Test
    void aSymlinkInsideAnAllowedRootIsJudgedWhereItLeads(@TempDir Path dir) throws IOException {
        Path allowed = Files.createDirectories(dir.resolve("allowed"));
        Files.createSymbolicLink(allowed.resolve("etc"), Path.of("/etc"));
        Files.createSymbolicLink(allowed.resolve("sock"), Path.of("/dev/null"));
        Files.createSymbolicLink(allowed.resolve("dangling"), dir.resolve("nowhere"));
        Files.createSymbolicLink(allowed.resolve("inside"), allowed.resolve("real"));
        Files.createDirectories(allowed.resolve("real"));
        String yaml = PolicyTestKit.MANIFEST_YAML.replace("hostPaths: [", "hostPaths: [" + allowed + ", ");
        GatePolicy policy = new GatePolicy(PolicyTestKit.MAX_BODY, new ManifestHostAccess(Path.of("/etc/rediacc/gate/repos.yaml"),
                Path.of("/var/lib/rediacc/gate"), ManifestLoader.parse(utf8(yaml))));
        java.util.function.Function<String, Verdict> bind = source -> {
            byte[] body = utf8(withHostConfig("\"Binds\":[\"" + source + ":/x\"]"));
            return policy.onBody(PolicyTestKit.post("/v1.50/containers/create", body), body, REPO, grants());
        };
        Refusal etc = refusal(bind.apply(allowed + "/etc/shadow"));
        assertThat(etc.rule()).isEqualTo("host-path-not-allowed");
        assertThat(etc.message()).contains("resolves to /etc/shadow");
        Refusal sock = refusal(bind.apply(allowed + "/sock"));
        assertThat(sock.rule()).isEqualTo("host-path");
        assertThat(sock.message()).contains("resolves to /dev/null");
        assertThat(refusal(bind.apply(allowed + "/dangling/sub")).message()).contains("cannot resolve");
        assertThat(bind.apply(allowed + "/inside/data")).isEqualTo(new Verdict.Allow());
        assertThat(bind.apply(allowed + "/not-yet/created")).isEqualTo(new Verdict.Allow());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {
            "{\"DriverOpts\":{\"type\":\"none\",\"o\":\"bind\",\"device\":\"/run/docker.sock\"}}",
            "{\"DriverOpts\":{\"type\":\"none\",\"o\":\"bind\",\"device\":\"/etc\"}}",
            "{\"DriverOpts\":{\"type\":\"nfs\",\"o\":\"bind\",\"device\":\"/run/containerd\"}}",
            "{\"DriverOpts\":{\"type\":\"cifs\",\"o\":\"bind\",\"device\":\"//localhost/..%2F..%2Fproc%2F1%2Froot\"}}",
            "{\"DriverOpts\":{\"type\":\"cifs\",\"device\":\"//localhost/..%2F..%2Fproc%2F1%2Froot\"}}",
            "{\"DriverOpts\":{\"type\":\"cifs\",\"device\":\"//server/share\"}}",
            "{\"DriverOpts\":{\"type\":\"nfs\",\"o\":\"addr=10.0.0.1\",\"device\":\":/export\"}}",
            "{\"DriverOpts\":{\"type\":\"ext4\",\"device\":\"/srv/disk.img\"}}",
            "{\"DriverOpts\":{\"type\":\"overlay\",\"o\":\"lowerdir=/srv/a,upperdir=/srv/b,workdir=/srv/c\",\"device\":\"overlay\"}}",
            "{\"DriverOpts\":{\"type\":\"none\",\"o\":\"bind\",\"device\":\"srv/data\"}}",
            "{\"DriverOpts\":{\"Type\":\"none\"}}",
            "{\"DriverOpts\":{\"o\":\"bind\"}}"})
    void volumeCreateWithOptionsThatReachTheHostIsRefused(String body) {
        Refusal r = refusal(send("/v1.50/volumes/create", body, grants()));
        assertThat(r.status()).isEqualTo(403);
        assertThat(r.rule()).isIn("volume-options", "host-path", "host-path-not-allowed");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"{\"Name\":\"data\"}", "{\"Name\":\"data\",\"Driver\":\"local\",\"DriverOpts\":{}}",
            "{\"DriverOpts\":{\"size\":\"10G\"}}", "{\"DriverOpts\":{\"type\":\"tmpfs\",\"device\":\"tmpfs\",\"o\":\"size=100m,uid=1000\"}}",
            "{\"DriverOpts\":{\"type\":\"none\",\"o\":\"bind\",\"device\":\"/srv/data\"}}",
            "{\"DriverOpts\":{\"type\":\"none\",\"o\":\"rbind,ro\",\"device\":\"/srv/data\"}}",
            "{\"Driver\":\"team-nfs\",\"DriverOpts\":{\"share\":\"x\"}}"})
    void volumeCreateWithoutHostReachIsAllowed(String body) {
        assertThat(send("/v1.50/volumes/create", body, grants())).isEqualTo(new Verdict.Allow());
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"{\"Driver\":\"some-plugin\"}", "{\"Driver\":\"Local\"}", "{\"Driver\":\"vieux/sshfs\"}"})
    void volumeDriversThatAreNotListedAreRefused(String body) {
        Refusal r = refusal(send("/v1.50/volumes/create", body, grants()));
        assertThat(r.rule()).isEqualTo("volume-driver");
        assertThat(r.message()).contains("volumeDrivers of repo gpu-a");
    }

    @Test
    void containerVolumeAndLogDriversMustBeBuiltInOrListed() {
        assertThat(refusal(create(withHostConfig("\"VolumeDriver\":\"evil\",\"Binds\":[\"data:/data\"]"))).rule()).isEqualTo("volume-driver");
        // Without Binds, the driver still creates the image's anonymous VOLUMEs.
        assertThat(refusal(create("{\"Image\":\"x\",\"Volumes\":{\"/data\":{}},\"HostConfig\":{\"VolumeDriver\":\"evil\"}}")).rule())
                .isEqualTo("volume-driver");
        assertThat(create(withHostConfig("\"VolumeDriver\":\"team-nfs\",\"Binds\":[\"data:/data\"]"))).isEqualTo(new Verdict.Allow());
        assertThat(refusal(create(withHostConfig("\"LogConfig\":{\"Type\":\"evil\",\"Config\":{}}"))).rule()).isEqualTo("log-driver");
        assertThat(create(withHostConfig("\"LogConfig\":{\"Type\":\"team-logs\",\"Config\":{}}"))).isEqualTo(new Verdict.Allow());
        assertThat(create(withHostConfig("\"LogConfig\":{\"Type\":\"json-file\",\"Config\":{\"max-size\":\"10m\"}}"))).isEqualTo(new Verdict.Allow());
        Refusal socket = refusal(create(withHostConfig(
                "\"LogConfig\":{\"Type\":\"syslog\",\"Config\":{\"syslog-address\":\"unix:///run/rediacc/gate/gpu-b.sock\"}}")));
        assertThat(socket.rule()).isEqualTo("log-socket");
        assertThat(socket.message()).contains("log socket").doesNotContain("CDI");
        Refusal devLog = refusal(create(withHostConfig(
                "\"LogConfig\":{\"Type\":\"syslog\",\"Config\":{\"syslog-address\":\"unix:///dev/log\"}}")));
        assertThat(devLog.rule()).isEqualTo("log-socket");
        assertThat(devLog.message()).contains("log socket").doesNotContain("CDI").doesNotContain("--device");
    }

    /**
     * Issue 30: the daemon dials a unix log socket by path (percent-decoded) at every start, restart,
     * boot and docker logs, so a socket under hostPaths is refused too, naming the network address
     * that serves instead; network addresses and the default syslog address pass.
     */
    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"syslog-address=unix:///srv/log.sock", "syslog-address=unixgram:///srv/log.sock",
            "syslog-address=UNIX:///srv/log.sock", "fluentd-address=unix:///srv/fluent.sock",
            "syslog-address=unix:///srv/l%2F..%2F..%2Fdev%2Flog"})
    void unixLogSocketsAreRefusedEvenUnderHostPathsNamingTheNetworkAlternative(String option) {
        String[] kv = option.split("=", 2);
        String driver = kv[0].substring(0, kv[0].indexOf('-'));
        Refusal r = refusal(create(withHostConfig(
                "\"LogConfig\":{\"Type\":\"" + driver + "\",\"Config\":{\"" + kv[0] + "\":\"" + kv[1] + "\"}}")));
        assertThat(r.status()).isEqualTo(403);
        assertThat(r.rule()).isEqualTo("log-socket");
        assertThat(r.message()).startsWith("log socket " + option).contains("udp://127.0.0.1:514").contains("tcp://127.0.0.1:24224");
    }

    @Test
    void networkLogAddressesAndTheDefaultSyslogPass() {
        for (String config : List.of("\"syslog-address\":\"udp://127.0.0.1:514\"", "\"syslog-address\":\"tcp://127.0.0.1:514\"", "")) {
            assertThat(create(withHostConfig("\"LogConfig\":{\"Type\":\"syslog\",\"Config\":{" + config + "}}")))
                    .as(config).isEqualTo(new Verdict.Allow());
        }
        assertThat(create(withHostConfig(
                "\"LogConfig\":{\"Type\":\"fluentd\",\"Config\":{\"fluentd-address\":\"tcp://127.0.0.1:24224\"}}")))
                .isEqualTo(new Verdict.Allow());
    }

    @Test
    void aBindOfTheHostsDevShmSuggestsShmSize() {
        Refusal r = refusal(create(withHostConfig("\"Binds\":[\"/dev/shm:/dev/shm\"]")));
        assertThat(r.rule()).isEqualTo("host-path");
        assertThat(r.message()).contains("--shm-size").contains("shm_size:").doesNotContain("CDI");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"syslog-tls-key", "syslog-tls-cert", "syslog-tls-ca-cert", "splunk-capath", "fluentd-tls-whatever"})
    void logOptionsThatMakeTheDaemonReadHostFilesAreRefused(String option) {
        Refusal r = refusal(create(withHostConfig(
                "\"LogConfig\":{\"Type\":\"syslog\",\"Config\":{\"" + option + "\":\"/etc/shadow\"}}")));
        assertThat(r.status()).isEqualTo(403);
        assertThat(r.rule()).isEqualTo("log-option-host-file");
        assertThat(r.message()).contains(option).contains("reads that file on the host");
    }

    @ParameterizedTest(name = "{0}")
    @ValueSource(strings = {"/l/..", "/l/../d", "/./d", "//d", "/d/", "/d//e", "/d/."})
    void volumeDeviceStringsMustAlreadyBeClean(String tail) {
        String root = "/srv";
        Refusal volume = refusal(send("/v1.50/volumes/create",
                "{\"Driver\":\"local\",\"DriverOpts\":{\"type\":\"none\",\"o\":\"bind\",\"device\":\"" + root + tail + "\"}}", grants()));
        Refusal rbind = refusal(send("/v1.50/volumes/create",
                "{\"DriverOpts\":{\"type\":\"none\",\"o\":\"rbind,ro\",\"device\":\"" + root + tail + "\"}}", grants()));
        Refusal inline = refusal(create(withHostConfig("\"Mounts\":[{\"Type\":\"volume\",\"Target\":\"/v\",\"VolumeOptions\":"
                + "{\"DriverConfig\":{\"Name\":\"local\",\"Options\":{\"type\":\"none\",\"o\":\"bind\",\"device\":\"" + root + tail + "\"}}}}]")));
        for (Refusal r : List.of(volume, rbind, inline)) {
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.rule()).isEqualTo("host-path-not-clean");
            assertThat(r.message()).contains("exactly as written").contains(root + tail);
        }
    }

    @Test
    void namedVolumesAreInspectedAndABindBackedOneOutsideTheAllowlistIsRefused() {
        Verdict first = POLICY.onBody(PolicyTestKit.post("/v1.50/containers/create", utf8("{}")),
                utf8(withHostConfig("\"Binds\":[\"data:/data\"],\"Mounts\":[{\"Type\":\"volume\",\"Source\":\"cache\",\"Target\":\"/c\"}]")),
                REPO, grants());
        assertThat(first).isEqualTo(new Verdict.InspectVolumes(List.of("data", "cache")));
        Verdict refused = POLICY.onVolumes(List.of(new StoredVolume("data", 200, utf8(
                "{\"Name\":\"data\",\"Driver\":\"local\",\"Mountpoint\":\"/var/lib/docker/volumes/data/_data\","
                        + "\"Options\":{\"type\":\"none\",\"o\":\"bind\",\"device\":\"/\"},\"Scope\":\"local\"}"))), REPO);
        assertThat(refusal(refused).rule()).isEqualTo("volume-options");
        assertThat(refusal(refused).message()).startsWith("volume data already exists");
        assertThat(POLICY.onVolumes(List.of(new StoredVolume("data", 200, utf8(
                "{\"Name\":\"data\",\"Driver\":\"local\",\"Options\":null,\"Scope\":\"local\"}")),
                new StoredVolume("cache", 404, utf8("{\"message\":\"no such volume\"}"))), REPO)).isEqualTo(new Verdict.Allow());
        assertThat(refusal(POLICY.onVolumes(List.of(new StoredVolume("data", 500, utf8("{}"))), REPO)).rule())
                .isEqualTo("volume-unreadable");
    }

    @Test
    void aKeptVolumeIsJudgedFromItsReadWithTheRulesOfTheMomentAsItsBytesWouldBe() {
        String bindToRoot = "{\"Name\":\"data\",\"Driver\":\"local\","
                + "\"Options\":{\"type\":\"none\",\"o\":\"bind\",\"device\":\"/\"}}";
        String plain = "{\"Name\":\"data\",\"Driver\":\"local\",\"Options\":null}";
        String plugin = "{\"Name\":\"data\",\"Driver\":\"vieux/sshfs\",\"Options\":{}}";
        for (String answer : List.of(bindToRoot, plain, plugin)) {
            StoredVolume bytes = new StoredVolume("data", 200, utf8(answer));
            StoredVolume read = new StoredVolume("data", 200, utf8(answer), VolumeBacking.read("data", utf8(answer)));
            assertThat(POLICY.onVolumes(List.of(read), REPO)).as(answer).isEqualTo(POLICY.onVolumes(List.of(bytes), REPO));
        }
        // The read is what is judged, not the bytes: a kept create never parses its volume's answer again (issue 34).
        StoredVolume readSaysPlugin = new StoredVolume("data", 200, utf8(plain), VolumeBacking.read("data", utf8(plugin)));
        assertThat(refusal(POLICY.onVolumes(List.of(readSaysPlugin), REPO)).rule()).isEqualTo("volume-driver");
        // An answer that cannot be read has no read to keep, and is refused from its bytes every time.
        String twinDrivers = "{\"Name\":\"data\",\"Driver\":\"local\",\"Driver\":\"vieux/sshfs\"}";
        assertThat(VolumeBacking.readOrNull("data", utf8(twinDrivers))).isNull();
        assertThat(refusal(POLICY.onVolumes(List.of(new StoredVolume("data", 200, utf8(twinDrivers))), REPO)).rule())
                .isEqualTo("volume-unreadable");
    }

    @ParameterizedTest(name = "{0} {1}")
    @org.junit.jupiter.params.provider.CsvSource({"POST, /v1.52/plugins/pull?remote=vieux/sshfs", "POST, /plugins/x/upgrade",
            "POST, /v1.52/plugins/x:latest/set", "POST, /plugins/x/enable", "POST, /plugins/x/disable", "POST, /plugins/create?name=x",
            "POST, /plugins/x/push", "DELETE, /plugins/x", "PUT, /plugins/x/set"})
    void everyPluginManagementEndpointIsRefused(String method, String uri) {
        Refusal r = refusal(POLICY.onHead(new RequestHead(method, uri, java.util.Map.of()), REPO));
        assertThat(r.rule()).isEqualTo("plugin-management");
    }

    @Test
    void readingPluginsPasses() {
        for (String uri : List.of("/v1.52/plugins", "/plugins/x/json", "/plugins/privileges?remote=x")) {
            assertThat(POLICY.onHead(new RequestHead("GET", uri, java.util.Map.of()), REPO)).isEqualTo(new HeadVerdict.Pass());
        }
    }
}
