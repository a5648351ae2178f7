package io.rediacc.gpu.agent.setup;

import io.rediacc.gpu.agent.inventory.ReposManifest;
import io.rediacc.gpu.contracts.events.RepoInfo;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class ReposManifestTest {

    @TempDir
    Path dir;

    private ReposManifest.Contents read(String yaml) throws IOException {
        Path file = dir.resolve("repos.yaml");
        Files.writeString(file, yaml);
        return ReposManifest.read(file);
    }

    @Test
    void aMachineWithoutAGateHasNoRepos() {
        assertThat(ReposManifest.read(dir.resolve("absent.yaml"))).isEqualTo(ReposManifest.Contents.EMPTY);
    }

    @Test
    void anInvalidForkParentIsDroppedButTheRepoStays() throws IOException {
        var c = read("""
                repos:
                  - {name: a, guid: 6b1f3c2a-8d4e-4f5a-9b6c-7d8e9f0a1b2c, forkOf: parent-repo}
                """);

        assertThat(c.repos()).containsExactly(new RepoInfo("a", "6b1f3c2a-8d4e-4f5a-9b6c-7d8e9f0a1b2c", null));
        assertThat(c.warnings()).singleElement().asString().contains("forkOf", "without a fork parent");
    }

    @Test
    void aGuidListedTwiceCountsOnce() throws IOException {
        var c = read("""
                repos:
                  - {name: a, guid: 6b1f3c2a-8d4e-4f5a-9b6c-7d8e9f0a1b2c}
                  - {name: b, guid: 6B1F3C2A-8D4E-4F5A-9B6C-7D8E9F0A1B2C}
                """);

        assertThat(c.repos()).extracting(RepoInfo::name).containsExactly("a");
        assertThat(c.warnings()).singleElement().asString().contains("listed twice");
    }

    @Test
    void brokenYamlIsReportedNotThrown() throws IOException {
        var c = read("repos: [ {name: a\n");

        assertThat(c.repos()).isEmpty();
        assertThat(c.warnings()).singleElement().asString().contains("not valid YAML");
    }

    @Test
    void reposThatIsNotAListIsReported() throws IOException {
        var c = read("machine: m1\nrepos: web\n");

        assertThat(c.machine()).contains("m1");
        assertThat(c.warnings()).singleElement().asString().contains("\"repos\" must be a list");
    }
}
