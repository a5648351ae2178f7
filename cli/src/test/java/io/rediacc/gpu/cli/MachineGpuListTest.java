package io.rediacc.gpu.cli;

import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.support.LaunchResult;
import io.rediacc.gpu.cli.support.Golden;
import io.rediacc.gpu.cli.support.Rdc;
import io.rediacc.gpu.cli.support.Recordings;
import io.rediacc.gpu.cli.support.StandInService;
import io.rediacc.gpu.cli.support.StandInService.Answer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import static io.rediacc.gpu.cli.support.Rdc.stderr;
import static io.rediacc.gpu.cli.support.Rdc.stdout;
import static org.assertj.core.api.Assertions.assertThat;

class MachineGpuListTest {

    static final String INVENTORY = "inventory-service";
    static final String GRANTS = "grant-service";

    StandInService inventory;
    StandInService grants;

    @BeforeEach
    void startServices() {
        inventory = StandInService.start()
                .on("GET", "/api/v1/machines/gpu-host-1", Answer.recorded(200, INVENTORY, "machine-gpu-host-1.json"))
                .on("GET", "/api/v1/machines/wsl-gpu", Answer.recorded(200, INVENTORY, "machine-wsl-gpu.json"))
                .on("GET", "/api/v1/machines/wsl-gpu/inventory", Answer.recorded(200, INVENTORY, "inventory-wsl-gpu.json"))
                .on("GET", "/api/v1/machines/nope", Answer.recorded(404, INVENTORY, "error-unknown-machine.json"));
        grants = StandInService.start()
                .on("GET", "/api/v1/machines/gpu-host-1/grants", Answer.recorded(200, GRANTS, "machine-grants-gpu-host-1.json"))
                .on("GET", "/api/v1/machines/wsl-gpu/grants", Answer.recorded(404, GRANTS, "error-unknown-machine.json"));
    }

    @AfterEach
    void stopServices() {
        inventory.close();
        grants.close();
    }

    @Test
    void tableShowsEachGpuAndWhoHoldsEveryGrantableName() {
        LaunchResult result = new Rdc(inventory, grants).run("machine", "gpu", "list", "gpu-host-1");

        assertThat(result.exitCode()).isZero();
        Golden.assertMatches(stdout(result), "machine-gpu-list-gpu-host-1.txt");
        // a grant whose name the machine no longer defines (a setup removed it) is orphaned, and said so
        assertThat(result.getErrorStream()).containsExactly("warning: nvidia.com/gpu=2 is orphaned: granted, but gpu-host-1's CDI specs no longer define it, so its gate "
                        + "refuses it; rerun rdc machine setup gpu-host-1 once the device is back, or free it with rdc repo gpu "
                        + "revoke <repo>@gpu-host-1 --device nvidia.com/gpu=2");
        // the stored inventory (for setup's generatedAt) is not there: AGE falls back to the publication's
        assertThat(inventory.requests()).extracting(StandInService.Request::line)
                .containsExactly("GET /api/v1/machines/gpu-host-1", "GET /api/v1/machines/gpu-host-1/inventory");
        assertThat(grants.requests()).extracting(StandInService.Request::line)
                .containsExactly("GET /api/v1/machines/gpu-host-1/grants");
    }

    /**
     * Orphaned is what the services report, not rdc's guess: with the same inventory (no gpu=2) and the same grants,
     * a grant-service that reports nothing orphaned (its inventory still defines gpu=2) gets no mark and no warning,
     * and inventory-service's report of a name the gates hold is shown with the gates' holders.
     */
    @Test
    void orphanedIsWhatTheServicesReport() {
        String grantsNow = Recordings.read(GRANTS, "machine-grants-gpu-host-1.json");
        grants.on("GET", "/api/v1/machines/gpu-host-1/grants", Answer.json(200,
                grantsNow.replace("\"orphaned\":[\"nvidia.com/gpu=2\"]", "\"orphaned\":[]")));

        LaunchResult quiet = new Rdc(inventory, grants).run("machine", "gpu", "list", "gpu-host-1");

        assertThat(quiet.exitCode()).isZero();
        assertThat(stdout(quiet)).contains("\nnvidia.com/gpu=2    eval-c (db only)\n").doesNotContain("orphaned");
        assertThat(quiet.getErrorStream()).isEmpty();

        String detail = Recordings.read(INVENTORY, "machine-gpu-host-1.json");
        inventory.on("GET", "/api/v1/machines/gpu-host-1", Answer.json(200, detail.substring(0, detail.lastIndexOf('}'))
                + ",\"orphaned\":[{\"name\":\"nvidia.com/gpu=3\",\"holders\":[{\"repo\":\"infer-b\","
                + "\"repoGuid\":\"7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f\",\"exclusive\":false,\"source\":\"gate\"}]}]}"));

        LaunchResult gates = new Rdc(inventory, grants).run("machine", "gpu", "list", "gpu-host-1");

        assertThat(stdout(gates)).contains("\nnvidia.com/gpu=2             eval-c (db only)\n"
                + "nvidia.com/gpu=3 (orphaned)  infer-b (gate only)\n");
        assertThat(gates.getErrorStream()).singleElement().asString().startsWith("warning: nvidia.com/gpu=3 is orphaned: ");
    }

    @Test
    void gpuRowsShowTheVendorInVendorThenIndexOrderAndTheAgeOfWhatSetupWrote() {
        String detail = """
                {"machine":"mixed","platform":"local","generatedAt":"2026-11-29T10:00:00Z","ageSeconds":3,"stale":false,                "agentVersion":"0.1.0","gpus":[                {"index":1,"vendor":"nvidia","name":"NVIDIA H100 80GB HBM3","driverVersion":"550.127.05","memoryMiB":81559},                {"index":0,"vendor":"nvidia","name":"NVIDIA H100 80GB HBM3","driverVersion":"550.127.05","memoryMiB":81559},                {"index":0,"vendor":"amd","name":"AMD GPU 0x740f (gfx90a)"}],                "cdiDevices":[],"gates":[],"anyLiveGate":true}""";
        String setupWrote = java.time.Instant.now().minus(java.time.Duration.ofDays(3)).minusSeconds(30).toString();
        inventory.on("GET", "/api/v1/machines/mixed", Answer.json(200, detail))
                .on("GET", "/api/v1/machines/mixed/inventory", Answer.json(200, "{\n  \"schemaVersion\" : 1,\n"
                        + "  \"machine\" : \"mixed\",\n  \"generatedAt\" : \"" + setupWrote + "\"\n}\n"));
        grants.on("GET", "/api/v1/machines/mixed/grants", Answer.json(200, "{\"machine\":\"mixed\",\"version\":0,\"grants\":[]}"));

        LaunchResult result = new Rdc(inventory, grants).run("machine", "gpu", "list", "mixed");

        assertThat(result.exitCode()).isZero();
        assertThat(stdout(result)).startsWith("""
                VENDOR  GPU  NAME                     DRIVER      MEMORY     PLATFORM  AGE
                amd     0    AMD GPU 0x740f (gfx90a)  -           -          local     3d
                nvidia  0    NVIDIA H100 80GB HBM3    550.127.05  81559 MiB  local     3d
                nvidia  1    NVIDIA H100 80GB HBM3    550.127.05  81559 MiB  local     3d
                """);
    }

    /**
     * The operator's trip: gpu-a holds card 0's render node exclusively; the index, UUID and {@code all}
     * names of card 0 must say that card is reserved, and by whom, although no grant names them.
     */
    @Test
    void eachNameShowsTheCardItReachesAndWhoReservesThatCardUnderAnyName() {
        String detail = """
                {"machine":"cards","platform":"local","generatedAt":"2026-11-29T10:00:00Z","ageSeconds":3,"stale":false,                "agentVersion":"0.1.0","gpus":[                {"index":0,"vendor":"nvidia","name":"NVIDIA H100 80GB HBM3","pciBusId":"0000:18:00.0"},                {"index":1,"vendor":"nvidia","name":"NVIDIA H100 80GB HBM3","pciBusId":"0000:28:00.0"}],                "cdiDevices":[{"name":"nvidia.com/gpu=0","holders":[]},{"name":"nvidia.com/gpu=1","holders":[]},                {"name":"nvidia.com/gpu=GPU-4a99","holders":[]},{"name":"nvidia.com/gpu=all","holders":[]},                {"name":"rediacc.io/dri=renderD128","holders":[{"repo":"gpu-a","repoGuid":"1b9c0f3e-2d4a-4f5b-8c6d-7e8f9a0b1c2d",                "exclusive":true,"source":"gate-1"}]},{"name":"rediacc.io/dri=renderD129","holders":[]}],                "gates":[{"gateId":"gate-1","appliedVersion":3,"state":"synced","live":true,"daemons":[]}]}""";
        String stored = """
                {"schemaVersion":1,"machine":"cards","generatedAt":"2026-11-29T10:00:00Z","cdiDevices":[                {"name":"nvidia.com/gpu=0","cards":["0000:18:00.0"]},{"name":"nvidia.com/gpu=1","cards":["0000:28:00.0"]},                {"name":"nvidia.com/gpu=GPU-4a99","cards":["0000:18:00.0"]},                {"name":"nvidia.com/gpu=all","cards":["0000:18:00.0","0000:28:00.0"]},                {"name":"rediacc.io/dri=renderD128","cards":["0000:18:00.0"]},                {"name":"rediacc.io/dri=renderD129","cards":["0000:28:00.0"]}]}
                """;
        inventory.on("GET", "/api/v1/machines/cards", Answer.json(200, detail))
                .on("GET", "/api/v1/machines/cards/inventory", Answer.json(200, stored));
        grants.on("GET", "/api/v1/machines/cards/grants", Answer.json(200, """
                {"machine":"cards","version":3,"grants":[{"repoGuid":"1b9c0f3e-2d4a-4f5b-8c6d-7e8f9a0b1c2d",                "repoName":"gpu-a","device":"rediacc.io/dri=renderD128","exclusive":true,"grantedBy":"op",                "grantedAt":"2026-11-29T10:00:00Z"}]}"""));

        LaunchResult result = new Rdc(inventory, grants).run("machine", "gpu", "list", "cards");

        assertThat(result.exitCode()).isZero();
        assertThat(stdout(result)).contains("""
                DEVICE                     CARD                     HOLDERS            CARD RESERVED BY
                nvidia.com/gpu=0           nvidia 0 (0000:18:00.0)  -                  gpu-a (as rediacc.io/dri=renderD128)
                nvidia.com/gpu=1           nvidia 1 (0000:28:00.0)  -                  -
                nvidia.com/gpu=GPU-4a99    nvidia 0 (0000:18:00.0)  -                  gpu-a (as rediacc.io/dri=renderD128)
                nvidia.com/gpu=all         nvidia 0, nvidia 1       -                  gpu-a (as rediacc.io/dri=renderD128)
                rediacc.io/dri=renderD128  nvidia 0 (0000:18:00.0)  gpu-a (exclusive)  gpu-a
                rediacc.io/dri=renderD129  nvidia 1 (0000:28:00.0)  -                  -
                """);
    }

    @Test
    void jsonPrintsTheInventoryExactlyAsTheMachineRecordedIt() {
        LaunchResult result = new Rdc(inventory, grants).run("machine", "gpu", "list", "wsl-gpu", "-o", "json");

        assertThat(result.exitCode()).isZero();
        assertThat(stdout(result)).isEqualTo(Recordings.read(INVENTORY, "inventory-wsl-gpu.json"));
        assertThat(grants.requests()).isEmpty();
    }

    @Test
    void yamlPrintsTheSameInventoryAsYaml() {
        LaunchResult result = new Rdc(inventory, grants).run("machine", "gpu", "list", "wsl-gpu", "-o", "yaml");

        assertThat(result.exitCode()).isZero();
        Golden.assertMatches(stdout(result), "machine-gpu-list-wsl-gpu.yaml");
    }

    @Test
    void aStaleInventoryAndAMachineWithoutLiveGateAreFlagged() {
        // the stored inventory unreadable: AGE is the last publication's, as the stale warning's
        inventory.on("GET", "/api/v1/machines/wsl-gpu/inventory", Answer.json(503, "{\"error\":\"database-unavailable\"}"));
        LaunchResult result = new Rdc(inventory, grants).run("machine", "gpu", "list", "wsl-gpu");

        assertThat(result.exitCode()).isZero();
        Golden.assertMatches(stdout(result), "machine-gpu-list-wsl-gpu.txt");
        assertThat(result.getErrorStream()).containsExactly(
                "warning: the last inventory publication of wsl-gpu is 12m34s old (stale: more than 3 heartbeats); is its node-agent running?",
                "warning: no live gate on wsl-gpu: nothing is enforced there now; holders marked (db only) are granted but not enforced");
    }

    @Test
    void aDaemonTheGateCouldNotVerifyIsNamedInTheDaemonsColumnAndWarnedAbout() {
        String recorded = Recordings.read(INVENTORY, "machine-gpu-host-1.json");
        String misconfigured = recorded.replace(
                "{\"repoName\":\"infer-b\",\"repoGuid\":\"7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f\",\"state\":\"ok\",",
                "{\"repoName\":\"infer-b\",\"repoGuid\":\"7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f\",\"state\":\"misconfigured\","
                        + "\"detail\":\"DefaultRuntime is \\\"nvidia\\\", not runc; fix: set \\\"default-runtime\\\": \\\"runc\\\"\",");
        assertThat(misconfigured).isNotEqualTo(recorded);
        inventory.on("GET", "/api/v1/machines/gpu-host-1", Answer.json(200, misconfigured));

        LaunchResult result = new Rdc(inventory, grants).run("machine", "gpu", "list", "gpu-host-1");

        assertThat(result.exitCode()).isZero();
        assertThat(stdout(result)).contains("GATE    STATE   APPLIED VERSION  LIVE  DAEMONS\n"
                + "gate-1  synced  12               yes   infer-b misconfigured\n");
        assertThat(result.getErrorStream()).containsExactly("warning: the Docker daemon of repo infer-b on gpu-host-1 is "
                + "misconfigured: DefaultRuntime is \"nvidia\", not runc; fix: set \"default-runtime\": \"runc\"; gate gate-1 "
                + "refuses its device requests until it is verified", "warning: nvidia.com/gpu=2 is orphaned: granted, but gpu-host-1's CDI specs no longer define it, so its gate "
                        + "refuses it; rerun rdc machine setup gpu-host-1 once the device is back, or free it with rdc repo gpu "
                        + "revoke <repo>@gpu-host-1 --device nvidia.com/gpu=2");
    }

    @Test
    void anUnknownMachineIsOneLineAndExit3() {
        LaunchResult result = new Rdc(inventory, grants).run("machine", "gpu", "list", "nope");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(result.getErrorStream()).containsExactly("unknown-machine: no inventory of machine \"nope\" has been received"
                + " (hint: check the name with rdc machine list; a machine appears once its node-agent has published an inventory)");
        assertThat(result.getOutput()).isEmpty();
    }

    @Test
    void theConfiguredTokenIsSentAsBearerToInventoryAndGrantService() {
        LaunchResult result = new Rdc(inventory, grants).withConfig("token: s3cret-token\n")
                .run("machine", "gpu", "list", "gpu-host-1");

        assertThat(result.exitCode()).as(stderr(result)).isZero();
        assertThat(inventory.requests()).isNotEmpty().allSatisfy(sent -> {
            assertThat(sent.header("Authorization")).as(sent.line()).isEqualTo("Bearer s3cret-token");
            assertThat(sent.header("X-Actor")).as("reads name no actor").isNull();
        });
        assertThat(grants.requests()).isNotEmpty()
                .allSatisfy(sent -> assertThat(sent.header("Authorization")).isEqualTo("Bearer s3cret-token"));
    }

    @Test
    void withoutATokenNothingIsSentAndTheServicesRefusalIsOneLineAndExit1() {
        inventory.on("GET", "/api/v1/machines/gpu-host-1", Answer.recorded(401, INVENTORY, "error-unauthorized.json"));

        LaunchResult result = new Rdc(inventory, grants).run("machine", "gpu", "list", "gpu-host-1");

        assertThat(inventory.requests()).first().satisfies(sent -> assertThat(sent.header("Authorization")).isNull());
        assertThat(result.exitCode()).isEqualTo(ExitCodes.ERROR);
        assertThat(result.getErrorStream()).containsExactly("unauthorized: no bearer token: this call needs an authenticated caller"
                + " (hint: send Authorization: Bearer <token> (rdc reads it from RDC_TOKEN or token: in its config file))");
        assertThat(result.getOutput()).isEmpty();
    }

    @Test
    void anInvalidMachineNameIsAUsageErrorAndNothingIsAsked() {
        LaunchResult result = new Rdc(inventory, grants).run("machine", "gpu", "list", "bad/name");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.getErrorStream()).hasSize(1);
        assertThat(result.getErrorOutput()).startsWith("machine name \"bad/name\" is invalid");
        assertThat(inventory.requests()).isEmpty();
    }

    /** Issue 31: machine names are lower case (contracts Identifiers); RT-M2 is refused with the spelling to use. */
    @Test
    void anUpperCaseMachineNameIsAUsageErrorGivingTheLowerCaseSpelling() {
        LaunchResult result = new Rdc(inventory, grants).run("machine", "gpu", "list", "GPU-HOST-1");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.getErrorOutput()).contains("use \"gpu-host-1\"");
        assertThat(inventory.requests()).isEmpty();
    }

    @Test
    void withGrantServiceDownTheGatesViewIsStillListedWithAWarning() {
        String down = Rdc.nothingListening();
        LaunchResult result = new Rdc(inventory, null)
                .run("--grant-server", down, "machine", "gpu", "list", "gpu-host-1");

        assertThat(result.exitCode()).isZero();
        assertThat(result.getErrorStream()).singleElement().asString()
                .startsWith("warning: cannot compare with grant-service's database: cannot reach grant-service at " + down + ": ");
        assertThat(result.getOutput()).contains("nvidia.com/gpu=all  infer-b, train-a").doesNotContain("db only");
    }

    @Test
    void anUnreachableInventoryServiceIsOneLineAndExit1() {
        String down = Rdc.nothingListening();
        LaunchResult result = new Rdc(null, grants)
                .run("--inventory-server", down, "machine", "gpu", "list", "gpu-host-1");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.ERROR);
        assertThat(result.getErrorStream()).singleElement().asString()
                .startsWith("cannot reach inventory-service at " + down + ": ");
        assertThat(stderr(result)).doesNotContain("Exception", "\tat ");
    }
}
