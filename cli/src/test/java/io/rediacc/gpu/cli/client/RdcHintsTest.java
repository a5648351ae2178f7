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

    @Test
    void aKeyRegistrationRefusalNamesOnlyTheRekeyOption() {
        // what both services answer when setup offers a key other than the registered one (rdc machine setup prints it)
        assertThat(RdcHints.of("if the machine was reinstalled or its key replaced on purpose, re-key it: rdc machine setup m1"
                + " --rekey (PUT ...?rekey=true); else the key offered is not the machine's", null))
                .isEqualTo("if the machine was reinstalled or its key replaced on purpose, re-key it: rdc machine setup m1"
                        + " --rekey; else the key offered is not the machine's");
        assertThat(RdcHints.of("register it: rdc machine setup m1 (or PUT /api/v1/machines/m1/key)", null))
                .isEqualTo("register it: rdc machine setup m1");
    }

    /** Every recorded refusal of both services, as rdc prints it, names no HTTP call (issue 33: "rdc hints speak REST"). */
    @Test
    void noRecordedRefusalPrintsAnHttpCall() throws Exception {
        java.util.regex.Pattern http = java.util.regex.Pattern.compile("\\b(GET|PUT|POST|DELETE|PATCH) (/|\\.\\.\\.|its )");
        int seen = 0;
        for (String service : java.util.List.of("grant-service", "inventory-service")) {
            java.nio.file.Path dir = java.nio.file.Path.of(RdcHintsTest.class.getResource("/recorded/" + service).toURI());
            try (java.util.stream.Stream<java.nio.file.Path> files = java.nio.file.Files.list(dir)) {
                for (java.nio.file.Path f : files.filter(f -> f.getFileName().toString().startsWith("error-")).sorted().toList()) {
                    String line = recorded(service, f.getFileName().toString()).line();
                    assertThat(http.matcher(line).find()).as("%s/%s prints %s", service, f.getFileName(), line).isFalse();
                    seen++;
                }
            }
        }
        assertThat(seen).isGreaterThanOrEqualTo(10);
    }
}
