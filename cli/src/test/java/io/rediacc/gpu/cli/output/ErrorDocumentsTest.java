package io.rediacc.gpu.cli.output;

import com.fasterxml.jackson.databind.JsonNode;
import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.client.Json;
import io.rediacc.gpu.cli.support.Golden;
import io.rediacc.gpu.cli.support.LaunchResult;
import io.rediacc.gpu.cli.support.Rdc;
import io.rediacc.gpu.cli.support.StandInService;
import io.rediacc.gpu.cli.support.StandInService.Answer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

import java.util.ArrayList;
import java.util.List;

import static io.rediacc.gpu.cli.support.Rdc.stdout;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * A script that runs rdc with {@code -o json} (or yaml) reads a document on stdout whatever
 * happens: a failing command prints one error object there, with the exit code it exits with.
 * And {@code --no-headers} leaves a table's header line out.
 */
class ErrorDocumentsTest {

    /** Every command, as it fails against services that know nothing (404) or on its own input (usage). */
    static final List<Failing> FAILING = List.of(
            new Failing(ExitCodes.NOT_FOUND, "machine", "list"),
            new Failing(ExitCodes.NOT_FOUND, "machine", "list", "--page", "0"),
            new Failing(ExitCodes.NOT_FOUND, "machine", "gpu", "list", "m1"),
            new Failing(ExitCodes.NOT_FOUND, "machine", "remove", "m1"),
            new Failing(ExitCodes.NOT_FOUND, "repo", "gpu", "list", "a@m1"),
            new Failing(ExitCodes.NOT_FOUND, "audit", "--since", "2026-01-01T00:00:00Z"),
            new Failing(ExitCodes.USAGE, "repo", "gpu", "grant", "a@m1", "--device", "/dev/nvidia0"),
            new Failing(ExitCodes.USAGE, "repo", "gpu", "revoke", "a@m1", "--device", "gpu0"),
            new Failing(ExitCodes.USAGE, "machine", "list", "--page", "-1"),
            new Failing(ExitCodes.USAGE, "machine", "list", "--no-such-option"),
            new Failing(ExitCodes.USAGE, "machine", "remove", "not a machine"));

    record Failing(int exitCode, String... args) {
    }

    StandInService inventory;
    StandInService grants;

    @BeforeEach
    void startServices() {
        inventory = StandInService.start();
        grants = StandInService.start();
    }

    @AfterEach
    void stopServices() {
        inventory.close();
        grants.close();
    }

    @Test
    void everyFailingCommandPrintsOneJsonErrorObjectAndKeepsItsExitCode() throws Exception {
        for (Failing failing : FAILING) {
            LaunchResult result = new Rdc(inventory, grants).run(with(failing.args(), "-o", "json"));
            String what = String.join(" ", failing.args());

            assertThat(result.exitCode()).as(what).isEqualTo(failing.exitCode());
            JsonNode error = Json.mapper().readTree(stdout(result));
            assertThat(error.isObject()).as(what + ": " + stdout(result)).isTrue();
            assertThat(error.path("exitCode").asInt()).as(what).isEqualTo(failing.exitCode());
            assertThat(error.path("error").asText()).as(what).isNotBlank();
            assertThat(error.path("detail").asText()).as(what).isNotBlank();
            // the one line on stderr stays, for people
            assertThat(result.getErrorStream()).as(what).isNotEmpty();
        }
    }

    @Test
    void theYamlErrorIsTheSameDocumentAsTheJsonOne() throws Exception {
        for (Failing failing : FAILING) {
            String json = stdout(new Rdc(inventory, grants).run(with(failing.args(), "-o", "json")));
            LaunchResult yaml = new Rdc(inventory, grants).run(with(failing.args(), "--output=yaml"));
            Object loaded = new Yaml(new SafeConstructor(new LoaderOptions())).load(stdout(yaml));
            JsonNode fromYaml = Json.mapper().valueToTree(loaded);
            assertThat(fromYaml).as(String.join(" ", failing.args()))
                    .isEqualTo(Json.mapper().readTree(json));
            assertThat(yaml.exitCode()).isEqualTo(failing.exitCode());
        }
    }

    @Test
    void aServicesRefusalKeepsItsCodeDetailHintAndStatus() throws Exception {
        grants.on("DELETE", "/api/v1/machines/m1", Answer.json(409, """
                {"error":"machine-has-grants","detail":"machine m1 holds 2 grant(s)","hint":"add --revoke-grants"}"""));

        LaunchResult result = new Rdc(inventory, grants).run("machine", "remove", "m1", "-o", "json");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.CONFLICT);
        assertThat(Json.mapper().readTree(stdout(result))).isEqualTo(Json.mapper().readTree("""
                {"error":"machine-has-grants","detail":"machine m1 holds 2 grant(s)","hint":"add --revoke-grants",
                 "status":409,"exitCode":4}"""));
    }

    @Test
    void anUnreachableServiceIsAnErrorObjectToo() throws Exception {
        LaunchResult result = Rdc.bare("--grant-server", Rdc.nothingListening(), "--inventory-server", Rdc.nothingListening(),
                "-o", "json", "repo", "gpu", "grant", "a@m1", "--device", "nvidia.com/gpu=0");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.ERROR);
        JsonNode error = Json.mapper().readTree(stdout(result));
        assertThat(error.path("error").asText()).isEqualTo("error");
        assertThat(error.path("detail").asText()).contains("cannot reach grant-service");
        assertThat(error.has("status")).as("no service answered").isFalse();
        assertThat(error.path("exitCode").asInt()).isEqualTo(ExitCodes.ERROR);
    }

    @Test
    void tableOutputPrintsNothingOnStdoutWhenItFails() {
        LaunchResult result = new Rdc(inventory, grants).run("machine", "list");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.NOT_FOUND);
        assertThat(result.getOutputStream()).isEmpty();
    }

    @Test
    void noHeadersLeavesTheHeaderLineOutAndNothingElse() {
        inventory.on("GET", "/api/v1/machines", request ->
                request.rawQuery() != null && request.rawQuery().startsWith("page=1")
                        ? Answer.recorded(200, "inventory-service", "machines-page-1.json")
                        : Answer.recorded(200, "inventory-service", "machines-page-0.json"));

        LaunchResult plain = new Rdc(inventory, grants).run("machine", "list");
        LaunchResult bare = new Rdc(inventory, grants).run("machine", "list", "--no-headers");

        assertThat(bare.exitCode()).isZero();
        Golden.assertMatches(stdout(plain), "machine-list.txt");
        assertThat(plain.getOutputStream().get(0)).startsWith("MACHINE");
        assertThat(bare.getOutputStream()).isEqualTo(plain.getOutputStream().subList(1, plain.getOutputStream().size()));
    }

    private static String[] with(String[] args, String... more) {
        List<String> all = new ArrayList<>(List.of(args));
        all.addAll(List.of(more));
        return all.toArray(String[]::new);
    }

}
