package io.rediacc.gpu.contracts.signing;

import io.rediacc.gpu.contracts.events.CloudEventHeaders;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.Grant;
import io.rediacc.gpu.contracts.events.GrantSnapshot;
import io.rediacc.gpu.contracts.events.Topics;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The gate's copy of a machine's grants is trusted only as the record grant-service signed for that machine, by
 * every reader (docker-gate at start, node-agent's setup guard): edited, re-signed by another key, another
 * machine's, or an older release's bare file, it is refused and says why.
 */
class GrantSnapshotCopyTest {

    private static final KeyPair GRANT_SERVICE = SigningKeys.generate();
    private static final Instant NOW = Instant.parse("2026-12-06T00:00:00Z");

    @TempDir
    Path dir;

    static SignedRecord signed(GrantSnapshot snapshot, KeyPair by, Instant at) {
        byte[] value = EventJson.toBytes(snapshot);
        Map<String, byte[]> headers = new LinkedHashMap<>(CloudEventHeaders.of(Topics.GRANTS_TOPIC, "/test/grant-service",
                snapshot.machine(), "id-1", at));
        new RecordSigner(by.getPrivate(), by.getPublic()).sign(Topics.GRANTS, snapshot.machine(), headers, value);
        return SignedRecord.of(Topics.GRANTS, snapshot.machine(), headers::get, value);
    }

    private static GrantSnapshot snapshot(String machine) {
        return new GrantSnapshot(machine, 7, NOW, List.of(new Grant("3f2b8c1e-9d4a-4e57-8f0a-2c6d7e9b1a43", "gpu-a",
                "nvidia.com/gpu=0", true, "op", NOW)));
    }

    private GrantSnapshotCopy.Loaded load(String machine) {
        return GrantSnapshotCopy.load(GrantSnapshotCopy.file(dir, machine), machine,
                SignerKeys.grantServiceOnly(GRANT_SERVICE.getPublic()), NOW);
    }

    @Test
    void aCopyGrantServiceSignedForTheMachineLoadsWithItsGrants() throws IOException {
        GrantSnapshotCopy.write(GrantSnapshotCopy.file(dir, "m1"), signed(snapshot("m1"), GRANT_SERVICE, NOW));

        assertThat(load("m1")).isInstanceOfSatisfying(GrantSnapshotCopy.Verified.class,
                v -> assertThat(v.snapshot()).isEqualTo(snapshot("m1")));
        assertThat(GrantSnapshotCopy.files(dir)).containsOnlyKeys("m1");
        assertThat(load("m2")).isInstanceOf(GrantSnapshotCopy.NoCopy.class);
    }

    @Test
    void anEditedCopyIsRefusedAsTampered() throws IOException {
        Path file = GrantSnapshotCopy.file(dir, "m1");
        GrantSnapshotCopy.write(file, signed(snapshot("m1"), GRANT_SERVICE, NOW));
        Files.writeString(file, Files.readString(file).replace("nvidia.com/gpu=0", "nvidia.com/gpu=1"));

        assertThat(load("m1")).isInstanceOfSatisfying(GrantSnapshotCopy.Refused.class, r -> {
            assertThat(r.tampered()).isTrue();
            assertThat(r.why()).startsWith("not a record grant-service signed for machine m1");
        });
    }

    @Test
    void aCopySignedByAnotherKeyOrForAnotherMachineIsRefused() throws IOException {
        GrantSnapshotCopy.write(GrantSnapshotCopy.file(dir, "m1"), signed(snapshot("m1"), SigningKeys.generate(), NOW));
        GrantSnapshotCopy.write(GrantSnapshotCopy.file(dir, "m2"), signed(snapshot("m1"), GRANT_SERVICE, NOW));

        assertThat(load("m1")).isInstanceOfSatisfying(GrantSnapshotCopy.Refused.class, r -> assertThat(r.tampered()).isTrue());
        assertThat(load("m2")).isInstanceOfSatisfying(GrantSnapshotCopy.Refused.class,
                r -> assertThat(r.why()).contains("not of " + Topics.GRANTS + " key m2"));
    }

    @Test
    void anOlderReleasesBareSnapshotIsNoSignedCopy() throws IOException {
        Files.write(GrantSnapshotCopy.file(dir, "m1"), EventJson.toBytes(snapshot("m1")));
        Files.writeString(dir.resolve("status-epoch-gate"), "3", StandardCharsets.UTF_8); // the gate's other files are not copies

        assertThat(GrantSnapshotCopy.files(dir)).containsOnlyKeys("m1");
        assertThat(load("m1")).isInstanceOfSatisfying(GrantSnapshotCopy.Refused.class, r -> {
            assertThat(r.tampered()).isFalse();
            assertThat(r.why()).startsWith("not a signed copy");
        });
    }
}
