package io.rediacc.gpu.cli.client;

import io.rediacc.gpu.cli.failure.ServiceError;
import com.fasterxml.jackson.databind.JsonNode;
import io.rediacc.gpu.cli.support.Recordings;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/** The services' REST hints, as rdc prints them: the rdc command, never the HTTP call. */
class RdcHintsTest {

    private static ServiceError recorded(String service, String file) {
        JsonNode body = Json.treeOrNull(Recordings.read(service, file));
        return new ServiceError(body.path("error").asText(), body.path("detail").asText(), body.path("hint").asText(),
                RdcHints.of(body.path("hint").asText(), body));
    }

    @Test
    void anExclusiveConflictNamesTheRevokeThatReleasesTheCard() {
        ServiceError e = recorded("grant-service", "error-exclusive-conflict.json");
        assertThat(e.hint()).as("the REST hint stays, for -o json").contains("(DELETE its grant)");
        assertThat(e.line()).endsWith("(hint: ask the owner of train-a to release it "
                + "(rdc repo gpu revoke train-a@gpu-host-1 --device nvidia.com/gpu=0), or choose another device)");
    }

    @Test
    void notGrantedPointsAtRdcRepoGpuList() {
        assertThat(recorded("grant-service", "error-not-granted.json").line())
                .endsWith("(hint: revoke one of the names it holds; rdc repo gpu list train-a@gpu-host-1 lists them)")
                .doesNotContain("GET /api");
    }

    @Test
    void anUnknownMachinePointsAtRdcMachineList() {
        assertThat(recorded("grant-service", "error-unknown-machine.json").line()).doesNotContain("GET /api")
                .contains("rdc machine list");
        assertThat(recorded("inventory-service", "error-unknown-machine.json").line()).doesNotContain("GET /api")
                .contains("rdc machine list");
    }

    @Test
    void removingAMachineWithGrantsNamesOnlyTheRdcOption() {
        assertThat(RdcHints.of("revoke them first, or remove the machine with its grants: rdc machine remove m1"
                + " --revoke-grants (DELETE /api/v1/machines/m1?revokeGrants=true)", null))
                .isEqualTo("revoke them first, or remove the machine with its grants: rdc machine remove m1 --revoke-grants");
    }

    @Test
    void anUnknownDeviceHintNamesRdcMachineGpuList() {
        assertThat(RdcHints.of("grant nvidia.com/gpu=0 instead, or grant one of the machine's names (GET /api/v1/machines/"
                + "local-gpu lists them); if the device is new, rerun setup on local-gpu", null))
                .isEqualTo("grant nvidia.com/gpu=0 instead, or grant one of the machine's names (rdc machine gpu list "
                        + "local-gpu lists them); if the device is new, rerun setup on local-gpu");
    }
}
