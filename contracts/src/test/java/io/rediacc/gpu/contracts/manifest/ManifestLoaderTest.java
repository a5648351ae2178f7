package io.rediacc.gpu.contracts.manifest;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.charset.StandardCharsets;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ManifestLoaderTest {

    private static final String GUID_A = "3f2b8c1e-9d4a-4e57-8f0a-2c6d7e9b1a43";
    private static final String GUID_B = "7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f";

    private static ReposManifest parse(String yaml) {
        return ManifestLoader.parse(yaml.getBytes(StandardCharsets.UTF_8));
    }

    @Test
    void readsTheDocumentedFormat() {
        ReposManifest manifest = parse("""
                machine: gpu-host-1
                repos:
                  - name: trainer
                    guid: 3F2B8C1E-9D4A-4E57-8F0A-2C6D7E9B1A43
                    listen: unix:///run/rediacc/gate/trainer.sock
                    daemon: unix:///run/rediacc/docker/trainer.sock
                  - name: trainer-fork
                    guid: %s
                    forkOf: %s
                    listen: tcp://127.0.0.1:0
                    daemon: tcp://127.0.0.1:2375
                    buildkitDeviceEntitlementDisabled: true
                """.formatted(GUID_B, GUID_A));

        assertThat(manifest.machine()).isEqualTo("gpu-host-1");
        RepoEntry trainer = manifest.repo("trainer").orElseThrow();
        assertThat(trainer.guid()).as("GUIDs are canonical lower case").isEqualTo(GUID_A);
        assertThat(trainer.listen()).isEqualTo(SocketEndpoint.unix(Path.of("/run/rediacc/gate/trainer.sock")));
        assertThat(trainer.buildkitDeviceEntitlementDisabled()).isFalse();
        RepoEntry fork = manifest.repo("trainer-fork").orElseThrow();
        assertThat(fork.forkOf()).isEqualTo(GUID_A);
        assertThat(fork.daemon()).isEqualTo(SocketEndpoint.tcp("127.0.0.1", 2375));
        assertThat(fork.buildkitDeviceEntitlementDisabled()).isTrue();
        assertThat(manifest.repoInfos()).extracting(r -> r.forkOf()).containsExactly(null, GUID_A);
    }

    @Test
    void withoutAMachineTheHostNameIsUsedLikeNodeAgentDoes() {
        assertThat(parse("repos: []").machine()).isEqualTo(ManifestLoader.hostName());
    }

    @Test
    void aMisspelledFieldIsAnErrorNotASilentlyDroppedSetting() {
        assertThatThrownBy(() -> parse("""
                machine: m1
                repos:
                  - name: a
                    guid: %s
                    listen: tcp://127.0.0.1:0
                    deamon: tcp://127.0.0.1:2375
                """.formatted(GUID_A)))
                .isInstanceOf(InvalidManifestException.class)
                .hasMessageContaining("unknown key 'deamon' at repos[0]; did you mean 'daemon'?");
    }

    @Test
    void aForkThatReusesItsParentsGuidIsRejected() {
        assertThatThrownBy(() -> parse("""
                machine: m1
                repos:
                  - {name: a, guid: %1$s, listen: "tcp://127.0.0.1:0", daemon: "tcp://127.0.0.1:1"}
                  - {name: b, guid: %1$s, listen: "tcp://127.0.0.1:0", daemon: "tcp://127.0.0.1:2"}
                """.formatted(GUID_A)))
                .hasMessageContaining("repos[1]").hasMessageContaining("used by two repos")
                .hasMessageContaining("needs its own GUID");
    }

    @Test
    void twoReposCannotShareAListenSocket() {
        assertThatThrownBy(() -> parse("""
                machine: m1
                repos:
                  - {name: a, guid: %s, listen: "unix:///run/g.sock", daemon: "tcp://127.0.0.1:1"}
                  - {name: b, guid: %s, listen: "unix:///run/g.sock", daemon: "tcp://127.0.0.1:2"}
                """.formatted(GUID_A, GUID_B)))
                .hasMessageContaining("repos[1]: listen unix:///run/g.sock is used by two repos");
    }

    @Test
    void identifiersFollowTheContractsRules() {
        assertThatThrownBy(() -> parse("""
                machine: m1
                repos:
                  - {name: a, guid: not-a-guid, listen: "tcp://127.0.0.1:0", daemon: "tcp://127.0.0.1:1"}
                """)).hasMessageContaining("repos[0]").hasMessageContaining("repo GUID \"not-a-guid\" is invalid");
        assertThatThrownBy(() -> parse("""
                machine: "bad machine"
                repos: []
                """)).hasMessageContaining("machine:").hasMessageContaining("is invalid");
        assertThatThrownBy(() -> parse("""
                machine: m1
                repos:
                  - {name: "a@b", guid: %s, listen: "tcp://127.0.0.1:0", daemon: "tcp://127.0.0.1:1"}
                """.formatted(GUID_A))).hasMessageContaining("repo name \"a@b\" is invalid");
    }

    @Test
    void socketAddressesSayWhatToWrite() {
        assertThatThrownBy(() -> SocketEndpoint.parse("http://127.0.0.1:2375", "repos[0].daemon"))
                .hasMessageContaining("repos[0].daemon").hasMessageContaining("unix:///path/to.sock or tcp://host:port");
        assertThatThrownBy(() -> SocketEndpoint.parse("unix://relative.sock", "repos[0].listen"))
                .hasMessageContaining("absolute path");
        assertThatThrownBy(() -> SocketEndpoint.parse("tcp://127.0.0.1:99999", "repos[0].listen"))
                .hasMessageContaining("outside 0-65535");
        assertThatThrownBy(() -> parse("""
                machine: m1
                repos:
                  - {name: a, guid: %s, listen: "tcp://127.0.0.1:0", daemon: "tcp://127.0.0.1:0"}
                """.formatted(GUID_A))).hasMessageContaining("port 0 is only meaningful for a listener");
    }

    @Test
    void socketAccessIsForUnixListenersAndWrittenInOctal() {
        RepoEntry entry = parse("""
                machine: m1
                repos:
                  - {name: a, guid: %s, listen: "unix:///run/a.sock", daemon: "tcp://127.0.0.1:1", listenMode: "0660", listenGroup: repo-a}
                """.formatted(GUID_A)).repos().get(0);
        assertThat(entry.listenMode()).isEqualTo(0660);
        assertThat(entry.listenGroup()).isEqualTo("repo-a");
        assertThatThrownBy(() -> parse("""
                machine: m1
                repos:
                  - {name: a, guid: %s, listen: "unix:///run/a.sock", daemon: "tcp://127.0.0.1:1", listenMode: "rw-rw----"}
                """.formatted(GUID_A))).hasMessageContaining("listenMode").hasMessageContaining("\"0660\"");
        assertThatThrownBy(() -> parse("""
                machine: m1
                repos:
                  - {name: a, guid: %s, listen: "tcp://127.0.0.1:0", daemon: "tcp://127.0.0.1:1", listenMode: "0660"}
                """.formatted(GUID_A))).hasMessageContaining("unix sockets only");
    }

    @Test
    void aMissingManifestNamesTheSettingToFix(@TempDir Path dir) {
        assertThatThrownBy(() -> ManifestLoader.load(dir.resolve("nope.yaml")))
                .hasMessageContaining("nope.yaml does not exist").hasMessageContaining("gate.manifest");
    }

    @Test
    void brokenYamlIsReportedWithTheFile(@TempDir Path dir) throws Exception {
        Path file = dir.resolve("repos.yaml");
        java.nio.file.Files.writeString(file, "machine: m1\nrepos: [\n");
        assertThatThrownBy(() -> ManifestLoader.load(file))
                .hasMessageContaining(file.toString()).hasMessageContaining("not valid YAML");
    }

    @Test
    void readsWhatARepoMayReachOnTheHost() {
        RepoEntry a = parse("""
                machine: m1
                repos:
                  - name: a
                    guid: %s
                    listen: unix:///run/rediacc/gate/a.sock
                    daemon: unix:///run/rediacc/docker-a.sock
                    hostPaths: [/mnt/rediacc/mounts/%s/, /srv//data]
                    volumeDrivers: [team-nfs]
                    logDrivers: [team/logs:1.0]
                    daemonConfigDir: /mnt/rediacc/mounts/%s/.rediacc/docker/config
                    daemonDataRoot: /mnt/rediacc/mounts/%s/.rediacc/docker/data
                """.formatted(GUID_A, GUID_A, GUID_A, GUID_A)).repo("a").orElseThrow();

        assertThat(a.host().hostPaths()).containsExactly("/mnt/rediacc/mounts/" + GUID_A, "/srv/data");
        assertThat(a.host().volumeDrivers()).containsExactly("team-nfs");
        assertThat(a.host().logDrivers()).containsExactly("team/logs:1.0");
        assertThat(a.host().daemonDataRoot()).endsWith("/.rediacc/docker/data");
        assertThat(parse("repos: [{name: b, guid: %s, listen: 'tcp://127.0.0.1:0', daemon: 'tcp://127.0.0.1:1'}]".formatted(GUID_B))
                .repos().get(0).host()).as("none by default").isEqualTo(RepoHostAccess.NONE);
    }

    @Test
    void hostPathsMustBeAbsoluteListsAndNeverTheRoot() {
        String repo = "repos: [{name: a, guid: " + GUID_A + ", listen: 'tcp://127.0.0.1:0', daemon: 'tcp://127.0.0.1:1', ";
        assertThatThrownBy(() -> parse(repo + "hostPaths: [/]}]")).hasMessageContaining("hostPaths: / would let the repo bind the whole host");
        assertThatThrownBy(() -> parse(repo + "hostPaths: [/srv/../]}]")).hasMessageContaining("hostPaths: /");
        assertThatThrownBy(() -> parse(repo + "hostPaths: [srv/data]}]")).hasMessageContaining("must be an absolute path");
        assertThatThrownBy(() -> parse(repo + "hostPaths: /srv}]")).hasMessageContaining("hostPaths must be a list");
        assertThatThrownBy(() -> parse(repo + "daemonDataRoot: data}]")).hasMessageContaining("daemonDataRoot");
        assertThatThrownBy(() -> parse(repo + "volumeDrivers: ['a b']}]")).hasMessageContaining("is not a driver name");
    }

    @Test
    void aRootBeneathAnotherRootIsRefusedForItCouldBeSwappedForASymlinkToTheHostsRoot() {
        String a = "{name: a, guid: " + GUID_A + ", listen: 'tcp://127.0.0.1:0', daemon: 'tcp://127.0.0.1:1', hostPaths: ";
        String b = "{name: b, guid: " + GUID_B + ", listen: 'tcp://127.0.0.1:0', daemon: 'tcp://127.0.0.1:2', hostPaths: ";
        assertThatThrownBy(() -> parse("repos: [" + a + "[/srv/data, /srv/data/models]}]"))
                .hasMessageContaining("repos a.hostPaths: /srv/data/models lies beneath its own root /srv/data")
                .hasMessageContaining("symlink to /").hasMessageContaining("/srv/data already covers it: drop /srv/data/models");
        assertThatThrownBy(() -> parse("repos: [" + a + "[/srv/data]}, " + b + "[/srv/data/b/]}]"))
                .hasMessageContaining("repos b.hostPaths: /srv/data/b lies beneath repo a's root /srv/data")
                .hasMessageContaining("Name roots that do not nest");
        // siblings that share a prefix, and one root shared by two repos, are fine
        assertThat(parse("repos: [" + a + "[/srv/data, /srv/data2]}, " + b + "[/srv/data]}]").repos()).hasSize(2);
    }
}
