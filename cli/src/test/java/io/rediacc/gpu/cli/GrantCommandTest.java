package io.rediacc.gpu.cli;

import io.rediacc.gpu.cli.failure.ExitCodes;
import com.fasterxml.jackson.databind.JsonNode;
import io.rediacc.gpu.cli.support.LaunchResult;
import io.rediacc.gpu.cli.client.Json;
import io.rediacc.gpu.cli.support.Golden;
import io.rediacc.gpu.cli.support.Rdc;
import io.rediacc.gpu.cli.support.StandInService;
import io.rediacc.gpu.cli.support.StandInService.Answer;
import io.rediacc.gpu.cli.support.StandInService.Request;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

import java.util.List;

import static io.rediacc.gpu.cli.support.Rdc.stdout;
import static org.assertj.core.api.Assertions.assertThat;

class GrantCommandTest {

    static final String GRANTS = "grant-service";
    static final String TRAIN_A = "/api/v1/repos/train-a@gpu-host-1/grants";

    StandInService grants;

    @BeforeEach
    void startService() {
        grants = StandInService.start();
    }

    @AfterEach
    void stopService() {
        grants.close();
    }

    @Test
    void aGrantTheGatesEnforceExits0WithOneLine() throws Exception {
        grants.on("POST", TRAIN_A, Answer.recorded(201, GRANTS, "grant-created.json"));

        LaunchResult result = rdc().run("repo", "gpu", "grant", "train-a@gpu-host-1", "--device", "nvidia.com/gpu=1");

        assertThat(result.exitCode()).isZero();
        assertThat(result.getOutputStream()).containsExactly("granted nvidia.com/gpu=1 to train-a@gpu-host-1: "
                + "enforced: every live gate of gpu-host-1 (gate-1) applies version 14 or newer"
                + " (shares a card with infer-b's nvidia.com/gpu=all)");
        Request sent = grants.requests().get(0);
        assertThat(sent.line()).isEqualTo("POST " + TRAIN_A);
        assertThat(sent.header("Content-Type")).isEqualTo("application/json");
        JsonNode body = Json.mapper().readTree(sent.body());
        assertThat(body.get("device").asText()).isEqualTo("nvidia.com/gpu=1");
        assertThat(body.get("exclusive").asBoolean()).isFalse();
        assertThat(body.has("machine")).as("the machine travels in the path, name@machine").isFalse();
    }

    @Test
    void grantingWhatIsAlreadyGrantedExits0() {
        grants.on("POST", TRAIN_A, Answer.recorded(200, GRANTS, "grant-already.json"));

        LaunchResult result = rdc().run("repo", "gpu", "grant", "train-a@gpu-host-1", "--device", "nvidia.com/gpu=all");

        assertThat(result.exitCode()).isZero();
        assertThat(result.getOutput()).isEqualTo(
                "nvidia.com/gpu=all is granted to train-a@gpu-host-1: "
                        + "enforced: every live gate of gpu-host-1 (gate-1) applies version 13 or newer");
    }

    @Test
    void aGrantRecordedButNotYetEnforcedExits5() {
        grants.on("POST", TRAIN_A, Answer.recorded(202, GRANTS, "grant-not-enforced.json"));

        LaunchResult result = rdc().run("repo", "gpu", "grant", "train-a@gpu-host-1", "--device", "nvidia.com/gpu=1",
                "--exclusive", "--wait", "5s");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.NOT_ENFORCED);
        assertThat(result.getOutput()).isEqualTo("recorded nvidia.com/gpu=1 for train-a@gpu-host-1 (exclusive), not yet "
                + "enforced: recorded at version 15 but not yet enforced after waiting 5s: gate gate-1 is at version 14; "
                + "it applies the change when it catches up");
        assertThat(grants.requests().get(0).line()).isEqualTo("POST " + TRAIN_A + "?wait=5000ms");
        assertThat(grants.requests().get(0).body()).contains("\"exclusive\":true");
    }

    @ParameterizedTest(name = "HTTP {0} {1} exits {2}")
    @CsvSource({
            "409, error-exclusive-conflict.json,  4",
            "404, error-unknown-repo.json,        3",
            "422, error-unknown-device.json,      3",
            "400, error-invalid-device-name.json, 2",
            "503, error-database-unavailable.json, 1"})
    void aRefusalPrintsTheServicesMessageAndHintOnOneLine(int status, String recording, int exit)
            throws Exception {
        grants.on("POST", TRAIN_A, Answer.recorded(status, GRANTS, recording));

        LaunchResult result = rdc().run("repo", "gpu", "grant", "train-a@gpu-host-1", "--device", "nvidia.com/gpu=0");

        assertThat(result.exitCode()).isEqualTo(exit);
        JsonNode error = Json.mapper().readTree(io.rediacc.gpu.cli.support.Recordings.read(GRANTS, recording));
        assertThat(result.getErrorStream()).containsExactly("nvidia.com/gpu=0: " + error.get("error").asText() + ": "
                + error.get("detail").asText() + " (hint: " + error.get("hint").asText()
                .replace("(DELETE its grant)", "(rdc repo gpu revoke train-a@gpu-host-1 --device nvidia.com/gpu=0)")
                .replace("GET /api/v1/machines/gpu-host-1", "rdc machine gpu list gpu-host-1") + ")");
        assertThat(result.getOutput()).isEmpty();
    }

    @Test
    void everyDeviceIsGrantedOnItsOwnAndTheMostSevereOutcomeIsTheExitCode() {
        grants.on("POST", TRAIN_A, request -> {
            if (request.body().contains("nvidia.com/gpu=0")) {
                return Answer.recorded(409, GRANTS, "error-exclusive-conflict.json");
            }
            if (request.body().contains("nvidia.com/gpu=1")) {
                return Answer.recorded(201, GRANTS, "grant-created.json");
            }
            return Answer.recorded(202, GRANTS, "grant-not-enforced.json");
        });

        LaunchResult result = rdc().run("repo", "gpu", "grant", "train-a@gpu-host-1",
                "--device", "nvidia.com/gpu=0", "--device", "nvidia.com/gpu=1", "--device", "nvidia.com/gpu=all");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.CONFLICT);
        assertThat(grants.requests()).hasSize(3);
        assertThat(grants.requests()).extracting(Request::body).satisfiesExactly(
                b -> assertThat(b).contains("nvidia.com/gpu=0"),
                b -> assertThat(b).contains("nvidia.com/gpu=1"),
                b -> assertThat(b).contains("nvidia.com/gpu=all"));
        assertThat(result.getOutputStream()).hasSize(2);
        assertThat(result.getOutputStream().get(0)).startsWith("granted nvidia.com/gpu=1 to train-a@gpu-host-1");
        assertThat(result.getOutputStream().get(1)).startsWith("recorded nvidia.com/gpu=all for train-a@gpu-host-1");
        assertThat(result.getErrorStream()).singleElement().asString().startsWith("nvidia.com/gpu=0: exclusive-conflict: ");
    }

    @Test
    void jsonGivesEachDevicesStatusExitCodeAndAnswer() {
        grants.on("POST", TRAIN_A, request -> request.body().contains("nvidia.com/gpu=0")
                ? Answer.recorded(409, GRANTS, "error-exclusive-conflict.json")
                : Answer.recorded(201, GRANTS, "grant-created.json"));

        LaunchResult result = rdc().run("repo", "gpu", "grant", "train-a@gpu-host-1",
                "--device", "nvidia.com/gpu=1", "--device", "nvidia.com/gpu=0", "-o", "json");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.CONFLICT);
        Golden.assertMatches(stdout(result), "repo-gpu-grant.json");
        assertThat(result.getErrorOutput()).isEmpty();
    }

    @Test
    void anInvalidCdiNameIsOneLineExit2AndNoDeviceOfTheCallIsSent() {
        LaunchResult result = rdc().run("repo", "gpu", "grant", "train-a@gpu-host-1",
                "--device", "nvidia.com/gpu=0", "--device", "nvidia.com/gpu");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.getErrorStream()).containsExactly("invalid --device nvidia.com/gpu: \"nvidia.com/gpu\" is not a "
                + "qualified CDI device name: missing \"=\"; expected vendor/class=device, e.g. nvidia.com/gpu=0");
        assertThat(grants.requests()).isEmpty();
    }

    @Test
    void aPathInsteadOfADeviceNameIsRefusedBeforeAnythingIsSent() {
        LaunchResult result = rdc().run("repo", "gpu", "grant", "train-a", "--device", "/dev/dri/renderD128");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.getErrorStream()).singleElement().asString()
                .contains("is a path, not a CDI device name");
        assertThat(grants.requests()).isEmpty();
    }

    @ParameterizedTest(name = "{0} is sent to {1}")
    @CsvSource({
            "gpu-a@wsl-gpu, /api/v1/repos/gpu-a@wsl-gpu/grants",
            "train-a,       /api/v1/repos/train-a/grants"})
    void aRepoReferenceNamesTheRepoAndOptionallyItsMachine(String ref, String path) {
        grants.on("POST", path, Answer.recorded(201, GRANTS, "grant-created.json"));

        LaunchResult result = rdc().run("repo", "gpu", "grant", ref, "--device", "nvidia.com/gpu=all");

        assertThat(result.exitCode()).isZero();
        assertThat(grants.requests()).extracting(Request::rawPath).containsExactly(path);
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "a@b@c    | repo reference \"a@b@c\" has more than one '@'; expected name or name@machine, e.g. gpu-a@m1",
            "gpu-a@   | repo reference \"gpu-a@\" ends with '@'; name the machine after it, e.g. gpu-a@m1, or leave out the '@'",
            "-x@m1    | repo name \"-x\" is invalid: use 1-128 letters, digits, '.', '_' or '-', starting and ending with a letter or digit"})
    void aMalformedRepoReferenceIsOneLineExit2(String ref, String message) {
        LaunchResult result = rdc().run("repo", "gpu", "grant", "--device", "nvidia.com/gpu=0", "--", ref);

        assertThat(result.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.getErrorStream()).containsExactly(message);
        assertThat(grants.requests()).isEmpty();
    }

    @Test
    void aWaitThatIsNotADurationIsAUsageError() {
        LaunchResult result = rdc().run("repo", "gpu", "grant", "train-a", "--device", "nvidia.com/gpu=0", "--wait", "soon");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.getErrorStream()).containsExactly("--wait soon is not a duration; use e.g. 0, 500ms, 5s or 1m");
    }

    @Test
    void withoutADeviceTheCommandLineIsIncomplete() {
        LaunchResult result = rdc().run("repo", "gpu", "grant", "train-a");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.getErrorStream()).containsExactly(
                "Missing required option: '--device=<cdi-name>' (see 'rdc repo gpu grant --help')");
    }

    @Test
    void theConfiguredTokenIsSentAsBearerWithTheActor() {
        grants.on("POST", TRAIN_A, Answer.recorded(201, GRANTS, "grant-created.json"));

        LaunchResult result = new Rdc(null, null).withConfig("grantUrl: " + grants.url() + "\ntoken: s3cret-token\n")
                .run("repo", "gpu", "grant", "train-a@gpu-host-1", "--device", "nvidia.com/gpu=1");

        assertThat(result.exitCode()).isZero();
        Request sent = grants.requests().get(0);
        assertThat(sent.header("Authorization")).isEqualTo("Bearer s3cret-token");
        assertThat(sent.header("X-Actor")).startsWith("rdc");
    }

    @Test
    void anUnreachableGrantServiceIsOneLineAndExit1() {
        String down = Rdc.nothingListening();
        LaunchResult result = new Rdc(null, null).run("--grant-server", down,
                "repo", "gpu", "grant", "train-a@gpu-host-1", "--device", "nvidia.com/gpu=0", "--device", "nvidia.com/gpu=1");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.ERROR);
        assertThat(result.getErrorStream()).singleElement().asString()
                .startsWith("cannot reach grant-service at " + down + ": ");
        assertThat(result.getOutput()).isEmpty();
    }

    private Rdc rdc() {
        return new Rdc(null, grants);
    }

    static List<String> lines(String s) {
        return s.lines().toList();
    }
}
