package io.rediacc.gpu.grants.service;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.rediacc.gpu.api.problem.ApiProblem;
import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The refusals rdc's tests stand on (cli/src/test/resources/recorded/grant-service/error-*.json) are word for
 * word what this service answers now: when a refusal's wording changes here, this test fails until the recording
 * is made again, so the CLI is never tested against a sentence no service says any more.
 */
class RecordedProblemsTest {

    static final Path RECORDINGS = Path.of(System.getProperty("basedir", "."))
            .resolve("../cli/src/test/resources/recorded/grant-service").normalize();
    static final String REQUEST_ID = "9f1c2e04-5b7a-4d1e-8c3f-6a2b0d9e7f11";
    static final ObjectMapper JSON = new ObjectMapper();

    @Test
    void unknownDeviceIsRecordedAsTheServiceWordsIt() throws IOException {
        assertRecorded("error-unknown-device.json", Problems.unknownDevice("gpu-host-1", "nvidia.com/gpu=7",
                List.of("nvidia.com/gpu=0", "nvidia.com/gpu=1", "nvidia.com/gpu=all")));
    }

    @Test
    void exclusiveConflictIsRecordedAsTheServiceWordsIt() throws IOException {
        assertRecorded("error-exclusive-conflict.json", Problems.heldExclusively("gpu-host-1", "nvidia.com/gpu=0",
                new Holder("train-a", "3f2b8c1e-9d4a-4e57-8f0a-2c6d7e9b1a43", "nvidia.com/gpu=0", true)));
    }

    @Test
    void notGrantedIsRecordedAsTheServiceWordsIt() throws IOException {
        assertRecorded("error-not-granted.json", Problems.notGranted("train-a", "gpu-host-1", "nvidia.com/gpu=1",
                List.of("nvidia.com/gpu=0", "nvidia.com/gpu=all")));
    }

    @Test
    void unknownMachineAndRepoAreRecordedAsTheServiceWordsThem() throws IOException {
        assertRecorded("error-unknown-machine.json", Problems.unknownMachine("nope"));
        assertRecorded("error-unknown-repo.json", Problems.repoNotOnMachine("ghost", "gpu-host-1",
                List.of("eval-c", "infer-b", "train-a")));
    }

    @Test
    void aKeyHeldIsRecordedAsTheServiceWordsIt() throws IOException {
        assertRecorded("error-machine-key-registered.json", Problems.machineKeyHeld("gpu-host-1",
                "5c1e9f0a2b3d4e6f708192a3b4c5d6e7", "alice", java.time.Instant.parse("2026-11-29T10:00:00Z"),
                "0a1b2c3d4e5f60718293a4b5c6d7e8f9"));
    }

    private static void assertRecorded(String file, ApiProblem problem) throws IOException {
        JsonNode recorded = JSON.readTree(Files.readString(RECORDINGS.resolve(file)));
        JsonNode now = JSON.valueToTree(problem.body(REQUEST_ID));
        assertThat(now).as(file + ": re-record it from the service's answer").isEqualTo(recorded);
    }
}
