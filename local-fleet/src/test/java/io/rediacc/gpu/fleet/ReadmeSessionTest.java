package io.rediacc.gpu.fleet;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** How ReadmeSessionIT reads the README's session: without a fleet, so that a broken session block fails fast. */
class ReadmeSessionTest {

    @Test
    void theReadmesSessionParsesIntoCommandsOutputsAndExitCodes() throws Exception {
        List<ReadmeSession.Step> steps = ReadmeSession.parse(Files.readString(Path.of("../README.md")));

        assertThat(steps.get(0).command()).isEqualTo("./fleet up -d");
        assertThat(steps).extracting(ReadmeSession.Step::command)
                .contains("rdc machine list", "rdc repo gpu list gpu-a@local-gpu")
                .containsAll(ReadmeSessionIT.NEEDS_A_TERMINAL);
        assertThat(steps).filteredOn(s -> s.command().startsWith("rdc repo gpu grant gpu-a-fork"))
                .singleElement().extracting(ReadmeSession.Step::exit).isEqualTo(4);
        // the session makes its own directory and compose file before the first docker compose run: a reader needs no other copy
        List<String> commands = steps.stream().map(ReadmeSession.Step::command).toList();
        int firstCompose = commands.indexOf(commands.stream().filter(c -> c.startsWith("docker compose run")).findFirst().orElseThrow());
        assertThat(commands.subList(0, firstCompose)).anyMatch(c -> c.startsWith("mkdir -p walkthrough && cd walkthrough"))
                .anyMatch(c -> c.startsWith("printf ") && c.endsWith("> compose.yaml"));
        assertThat(steps).filteredOn(ReadmeSession.Step::interactive).extracting(ReadmeSession.Step::command)
                .containsExactlyElementsOf(ReadmeSessionIT.NEEDS_A_TERMINAL);
    }

    /**
     * Every spelling of the service's GPU line is a command the reader types (issue 33: "without translating a
     * single command"): no {@code docker compose run} leaves its file's content to a comment that the replay,
     * not the reader, turned into an edit.
     */
    @Test
    void everyComposeFileTheSessionRunsIsWrittenByACommandItShows() throws Exception {
        List<ReadmeSession.Step> steps = ReadmeSession.parse(Files.readString(Path.of("../README.md")));
        List<ReadmeSession.Step> composeRuns = steps.stream().filter(s -> s.command().contains("docker compose run")).toList();
        assertThat(composeRuns).hasSizeGreaterThanOrEqualTo(5);
        assertThat(composeRuns).allSatisfy(s -> assertThat(s.command()).as("what it runs is in the command, not a comment")
                .doesNotContain("#"));
        assertThat(composeRuns.subList(1, composeRuns.size())).allSatisfy(s -> assertThat(s.command())
                .as("each new spelling is written by the command itself").startsWith("sed -i '$c\\    ")
                .endsWith("' compose.yaml && docker compose run --rm train"));
    }

    @Test
    void whatDiffersBetweenFleetsIsNormalisedAndNothingElse() {
        assertThat(ReadmeSession.normalise("amd     0    AMD GPU 0x740f (gfx90a)  -           -          local     4s"))
                .isEqualTo(ReadmeSession.normalise("amd     0    AMD GPU 0x740f (gfx90a)  -           -          local     1m14s"));
        assertThat(ReadmeSession.normalise("local-gpu  local     3     1s         no     0.1.0-SNAPSHOT"))
                .isEqualTo(ReadmeSession.normalise("local-gpu  local     3     12s        no     0.1.0-SNAPSHOT"))
                .isEqualTo("local-gpu local 3 <age> no 0.1.0-SNAPSHOT");
        assertThat(ReadmeSession.normalise("cf81c5a1efb2...")).isEqualTo(ReadmeSession.normalise(
                "cf81c5a1efb2f00d0c9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e"));
        assertThat(ReadmeSession.normalise("28.5.2 CDI spec dirs: [\"/work/main/.fleet/machine/root/etc/cdi\"]"))
                .isEqualTo(ReadmeSession.normalise("28.5.2 CDI spec dirs: [\"/tmp/x/target/readme-session/.fleet/machine/root/etc/cdi\"]"));
        assertThat(ReadmeSession.normalise("reserved exclusively by repo gpu-a (6a994358-4cb2-4722-a6ee-4a86ddeefdaf)"))
                .endsWith("(<guid>)");
        assertThat(ReadmeSession.normalise("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-7fc596a7-39e2-3baf-9b3d-888082e87057)"))
                .as("the simulated machine's cards get new UUIDs on every fleet").isEqualTo("GPU 0: NVIDIA H100 80GB HBM3 (UUID: GPU-<guid>)");
        assertThat(ReadmeSession.normalise("gpu-a@local-gpu  rediacc.io/dri=renderD128  yes  rdc  2026-11-29T19:40:03.733362Z"))
                .isNotEqualTo(ReadmeSession.normalise("gpu-a@local-gpu  rediacc.io/dri=renderD128  yes  fleet-operator  2026-12-01T10:00:00.1Z"));
    }

    @Test
    void outputMustMatchLineForLineExceptWhereTheReadmeElides() {
        assertThat(ReadmeSession.mismatch(List.of("granted x: enforced"), List.of("granted x: enforced", ""), false)).isNull();
        assertThat(ReadmeSession.mismatch(List.of("docker: Error response from daemon: no"),
                List.of("docker: Error response from daemon: no", "", "Run 'docker run --help' for more information"), false))
                .contains("shows 1 line(s), the fleet printed 2");
        assertThat(ReadmeSession.mismatch(List.of("    package: changed - installed ... (a56cb2d76192)", "..."),
                List.of("x", "    package: changed - installed node-agent, docker-gate (0123456789ab)", "y"), true)).isNull();
        assertThat(ReadmeSession.mismatch(List.of("b", "a"), List.of("a", "b"), true)).contains("no line, in order");
    }
}
