package io.rediacc.gpu.contracts.events;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.Collections;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** Each refusal of the bounds carries its typed reason: consumers count and alert by it, never by the message. */
class RecordBoundsTest {

    private static final Instant NOW = Instant.parse("2026-12-05T06:00:00Z");
    private static final Duration SKEW = Duration.ofMinutes(2);

    private static MachineInventory inventory(String machine, Instant generatedAt, List<RepoInfo> repos) {
        return new MachineInventory(MachineInventory.SCHEMA_VERSION, machine, "local", "test", generatedAt, List.of(),
                List.of(), null, null, repos, List.of());
    }

    private static GateStatus status(String machine, String gateId, int heartbeatSeconds, Instant syncedAt) {
        return new GateStatus(machine, gateId, 1, GateStatus.SYNCED, List.of(), List.of(), heartbeatSeconds, syncedAt);
    }

    @Test
    void aRecordWithinItsBoundsIsAccepted() {
        assertThat(RecordBounds.inventory("m1", inventory("m1", NOW, List.of()), NOW, NOW, SKEW)).isNull();
        assertThat(RecordBounds.gateStatus("m1/gate", status("m1", "gate", 30, NOW), NOW, NOW, SKEW)).isNull();
        assertThat(RecordBounds.gateStatusTombstone("m1/gate")).isNull();
    }

    @Test
    void aRecordUnderAnotherMachinesKeyIsAKeyMismatch() {
        RecordRefusal inventory = RecordBounds.inventory("m2", inventory("m1", NOW, List.of()), NOW, NOW, SKEW);
        assertThat(inventory.reason()).isEqualTo(DropReason.KEY_MISMATCH);
        assertThat(inventory.detail()).contains("m1").contains("\"m2\"");
        assertThat(RecordBounds.gateStatus("m1/other", status("m1", "gate", 30, NOW), NOW, NOW, SKEW).reason())
                .isEqualTo(DropReason.KEY_MISMATCH);
    }

    @Test
    void aTimeBeyondTheSkewIsAFutureTimeWhereverItIs() {
        Instant late = NOW.plus(SKEW).plusSeconds(1);
        assertThat(RecordBounds.inventory("m1", inventory("m1", late, List.of()), NOW, NOW, SKEW).reason())
                .isEqualTo(DropReason.FUTURE);
        assertThat(RecordBounds.inventory("m1", inventory("m1", NOW, List.of()), late, NOW, SKEW).reason())
                .as("the record timestamp").isEqualTo(DropReason.FUTURE);
        RecordRefusal synced = RecordBounds.gateStatus("m1/gate", status("m1", "gate", 30, late), NOW, NOW, SKEW);
        assertThat(synced.reason()).isEqualTo(DropReason.FUTURE);
        assertThat(synced.detail()).contains("syncedAt").contains("NTP");
    }

    @Test
    void namesSizesAndNumbersOutOfBoundsAreInvalid() {
        assertThat(RecordBounds.inventory("bad name", inventory("bad name", NOW, List.of()), NOW, NOW, SKEW).reason())
                .isEqualTo(DropReason.INVALID);
        List<RepoInfo> tooMany = Collections.nCopies(RecordBounds.MAX_LIST + 1, new RepoInfo("r", "g", null));
        RecordRefusal big = RecordBounds.inventory("m1", inventory("m1", NOW, tooMany), NOW, NOW, SKEW);
        assertThat(big.reason()).isEqualTo(DropReason.INVALID);
        assertThat(big.detail()).contains("repos").contains(String.valueOf(RecordBounds.MAX_LIST));
        assertThat(RecordBounds.gateStatus("m1/gate", status("m1", "gate", RecordBounds.MAX_HEARTBEAT_SECONDS + 1, NOW),
                NOW, NOW, SKEW).reason()).isEqualTo(DropReason.INVALID);
        assertThat(RecordBounds.gateStatusTombstone("m1").reason()).isEqualTo(DropReason.INVALID);
    }
}
