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

class MachineListTest {

    static final String INVENTORY = "inventory-service";

    StandInService inventory;

    @BeforeEach
    void startService() {
        inventory = StandInService.start().on("GET", "/api/v1/machines", request ->
                request.rawQuery() != null && request.rawQuery().startsWith("page=1")
                        ? Answer.recorded(200, INVENTORY, "machines-page-1.json")
                        : Answer.recorded(200, INVENTORY, "machines-page-0.json"));
    }

    @AfterEach
    void stopService() {
        inventory.close();
    }

    @Test
    void tableListsTheWholeFleetPageByPage() {
        LaunchResult result = new Rdc(inventory, null).run("machine", "list");

        assertThat(result.exitCode()).isZero();
        Golden.assertMatches(stdout(result), "machine-list.txt");
        assertThat(inventory.requests()).extracting(StandInService.Request::line).containsExactly(
                "GET /api/v1/machines?page=0&size=500", "GET /api/v1/machines?page=1&size=500");
    }

    @Test
    void jsonHasEveryMachineAndTheTotal() {
        LaunchResult result = new Rdc(inventory, null).run("machine", "list", "-o", "json");

        assertThat(result.exitCode()).isZero();
        Golden.assertMatches(stdout(result), "machine-list.json");
    }

    @Test
    void filtersAndOnePageAreAskedOfTheService() {
        LaunchResult result = new Rdc(inventory, null).run("machine", "list", "--vendor", "nvidia",
                "--product", "A100 SXM", "--free", "--page", "0", "--size", "2");

        assertThat(result.exitCode()).isZero();
        assertThat(inventory.requests()).extracting(StandInService.Request::line).containsExactly(
                "GET /api/v1/machines?page=0&size=2&vendor=nvidia&product=A100+SXM&freeDevices=true");
        assertThat(result.getOutputStream()).last().isEqualTo("(page 0, 2 of 3 machines)");
    }

    @Test
    void anEmptyFleetSaysSo() {
        inventory.on("GET", "/api/v1/machines", Answer.recorded(200, INVENTORY, "machines-empty.json"));

        LaunchResult result = new Rdc(inventory, null).run("machine", "list");

        assertThat(result.exitCode()).isZero();
        assertThat(result.getOutput()).isEqualTo("No machines match.");
    }

    @Test
    void aPageSizeOutOfRangeIsAUsageError() {
        LaunchResult result = new Rdc(inventory, null).run("machine", "list", "--page", "0", "--size", "501");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.getErrorStream()).containsExactly("--size must be between 1 and 500");
        assertThat(inventory.requests()).isEmpty();
    }

    @Test
    void aParameterTheServiceRefusesIsAUsageErrorWithItsHint() {
        inventory.on("GET", "/api/v1/machines", Answer.recorded(400, INVENTORY, "error-invalid-parameter.json"));

        LaunchResult result = new Rdc(inventory, null).run("machine", "list");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.getErrorStream()).containsExactly(
                "invalid-parameter: size=501 is out of range (hint: ask for 1 to 500 items per page)");
    }
}
