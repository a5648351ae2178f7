package io.rediacc.gpu.cli;

import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.support.LaunchResult;
import io.rediacc.gpu.cli.support.Golden;
import io.rediacc.gpu.cli.support.Rdc;
import io.rediacc.gpu.cli.support.StandInService;
import io.rediacc.gpu.cli.support.StandInService.Answer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static io.rediacc.gpu.cli.support.Rdc.stdout;
import static org.assertj.core.api.Assertions.assertThat;

class RepoGpuListTest {

    static final String GRANTS = "grant-service";

    StandInService grants;

    @BeforeEach
    void startService() {
        grants = StandInService.start()
                .on("GET", "/api/v1/repos/train-a@gpu-host-1/grants", Answer.recorded(200, GRANTS, "repo-grants-train-a.json"))
                .on("GET", "/api/v1/repos/gpu-a/grants", Answer.recorded(200, GRANTS, "repo-grants-empty.json"))
                .on("GET", "/api/v1/repos/ghost@gpu-host-1/grants", Answer.recorded(404, GRANTS, "error-unknown-repo.json"))
                .on("GET", "/api/v1/repos/shared/grants", Answer.json(409, "{\"error\":\"ambiguous-repo\",\"detail\":\"repo name "
                        + "shared exists on several machines: m1, m2\",\"hint\":\"name the machine: shared@m1 or shared@m2\"}"));
    }

    @AfterEach
    void stopService() {
        grants.close();
    }

    @Test
    void tableListsTheRepoGrants() {
        LaunchResult result = new Rdc(null, grants).run("repo", "gpu", "list", "train-a@gpu-host-1");

        assertThat(result.exitCode()).isZero();
        Golden.assertMatches(stdout(result), "repo-gpu-list.txt");
    }

    @Test
    void yamlGivesTheSameAnswerAsYaml() {
        LaunchResult result = new Rdc(null, grants).run("repo", "gpu", "list", "train-a@gpu-host-1", "-o", "yaml");

        assertThat(result.exitCode()).isZero();
        Golden.assertMatches(stdout(result), "repo-gpu-list.yaml");
    }

    @Test
    void aRepoWithoutGrantsSaysSo() {
        LaunchResult result = new Rdc(null, grants).run("repo", "gpu", "list", "gpu-a");

        assertThat(result.exitCode()).isZero();
        assertThat(result.getOutput()).isEqualTo("gpu-a@wsl-gpu has no GPU grants.");
    }

    @Test
    void anUnknownRepoExits3() {
        LaunchResult result = new Rdc(null, grants).run("repo", "gpu", "list", "ghost@gpu-host-1");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(result.getErrorStream()).singleElement().asString().startsWith("unknown-repo: repo ghost is not on machine gpu-host-1");
    }

    @Test
    void anAmbiguousRepoNameIsAUsageErrorThatSaysWhichMachinesToName() {
        LaunchResult result = new Rdc(null, grants).run("repo", "gpu", "list", "shared");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.getErrorStream()).containsExactly("ambiguous-repo: repo name shared exists on several machines: "
                + "m1, m2 (hint: name the machine: shared@m1 or shared@m2)");
    }
}
