package io.rediacc.gpu.agent.inventory;

import io.rediacc.gpu.contracts.events.RepoInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;

import static org.assertj.core.api.Assertions.assertThat;

/** The agent reads the repos manifest with the gate's reader: what the gate refuses, the agent reports. */
class ManifestReposTest {

    private static final String WEB = "6b1f3c2a-8d4e-4f5a-9b6c-7d8e9f0a1b2c";
    private static final String FORK = "0c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f";

    @TempDir
    Path dir;

    private ManifestRepos read(String yaml) throws IOException {
        Path file = dir.resolve("repos.yaml");
        Files.writeString(file, yaml);
        return ManifestRepos.read(file);
    }

    @Test
    void aMachineWithoutAGateHasNoRepos() {
        assertThat(ManifestRepos.read(dir.resolve("absent.yaml"))).isEqualTo(ManifestRepos.NONE);
    }

    @Test
    void reportsEachReposNameGuidAndForkParent() throws IOException {
        var c = read("""
                machine: m1
                repos:
                  - {name: web, guid: %1$s, listen: "unix:///run/g/web.sock", daemon: "unix:///run/d/web.sock"}
                  - {name: web-fork, guid: %2$s, forkOf: %1$s, listen: "unix:///run/g/f.sock", daemon: "unix:///run/d/f.sock"}
                """.formatted(WEB.toUpperCase(), FORK));

        assertThat(c.valid()).isTrue();
        assertThat(c.machine()).contains("m1");
        assertThat(c.repos()).containsExactly(new RepoInfo("web", WEB, null), new RepoInfo("web-fork", FORK, WEB));
    }

    @Test
    void withoutMachineTheAgentsOwnRuleDecides() throws IOException {
        var c = read("""
                repos:
                  - {name: web, guid: %s, listen: "unix:///run/g/web.sock", daemon: "unix:///run/d/web.sock"}
                """.formatted(WEB));

        assertThat(c.machine()).as("no host name fallback here: MachineName decides").isEmpty();
        assertThat(c.repos()).hasSize(1);
    }

    @Test
    void aMisspeltKeyThatTheGateRefusesLeavesEveryRepoOutWithTheGatesMessage() throws IOException {
        var c = read("""
                machine: m1
                repos:
                  - {name: web, guid: %s, listen: "unix:///run/g/web.sock", daemon: "unix:///run/d/web.sock", hostPath: [/srv]}
                """.formatted(WEB));

        assertThat(c.valid()).isFalse();
        assertThat(c.repos()).isEmpty();
        assertThat(c.warnings()).singleElement().asString()
                .contains("unknown key 'hostPath' at repos[0]; did you mean 'hostPaths'?");
    }

    @Test
    void anInvalidForkParentIsRefusedAsTheGateRefusesIt() throws IOException {
        var c = read("""
                repos:
                  - {name: a, guid: %s, forkOf: parent-repo, listen: "unix:///run/g/a.sock", daemon: "unix:///run/d/a.sock"}
                """.formatted(WEB));

        assertThat(c.repos()).isEmpty();
        assertThat(c.warnings()).singleElement().asString().contains("repos[0]");
    }

    @Test
    void brokenYamlIsReportedNotThrown() throws IOException {
        var c = read("repos: [ {name: a\n");

        assertThat(c.repos()).isEmpty();
        assertThat(c.warnings()).singleElement().asString().contains("not valid YAML");
    }

    @Test
    void aManifestThatBecomesInvalidLeavesTheLastValidOneInForceAsInTheGate() throws IOException {
        InventoryAssembler assembler = new InventoryAssembler("test", Clock.systemUTC());
        ManifestRepos valid = read("""
                machine: m1
                repos:
                  - {name: web, guid: %s, listen: "unix:///run/g/web.sock", daemon: "unix:///run/d/web.sock"}
                """.formatted(WEB));
        assertThat(assembler.manifestInForce(valid)).isEqualTo(valid);

        ManifestRepos typo = read("machine: m1\nrepo: []\n");

        assertThat(typo.warnings()).singleElement().asString().contains("unknown key 'repo' at the top level; did you mean 'repos'?");
        assertThat(assembler.manifestInForce(typo)).as("neither renamed nor emptied by a typo").isEqualTo(valid);
    }
}
