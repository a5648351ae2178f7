package io.rediacc.gpu.contracts.events;

import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/** The count and digest describe every enforced grant; the list is carried only up to a cap. */
class GateStatusTest {

    private static final Grant DOCUMENTED = new Grant("3f2b8c1e-9d4a-4e57-8f0a-2c6d7e9b1a43", "gpu-a", "nvidia.com/gpu=all",
            false, "alice", Instant.parse("2026-11-29T10:16:02.470Z"));

    private static List<Grant> grants(int n) {
        List<Grant> out = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            out.add(new Grant("00000000-0000-4000-8000-%012d".formatted(i), "r" + i, "nvidia.com/gpu=" + (i % 8), false,
                    "bench", Instant.parse("2026-11-29T10:00:00Z")));
        }
        return out;
    }

    @Test
    void theOldConstructorListsEveryGrantAndComputesCountAndDigest() {
        GateStatus status = new GateStatus("m1", "g", 3, GateStatus.SYNCED, List.of(DOCUMENTED), List.of(), 30, Instant.EPOCH);

        assertThat(status.grantsListed()).isTrue();
        assertThat(status.grantCount()).isEqualTo(1);
        // The value in docs/EVENTS.md's example: the documented digest recipe and the code agree.
        assertThat(status.grantsDigest()).isEqualTo("26bb8efdbe0d422cea3495c9c4896d6a700a01e351a9cfa96a5fddda268620f7");
    }

    @Test
    void overTheCapTheListIsEmptyButCountAndDigestCoverEveryGrant() {
        List<Grant> many = grants(1001);
        GateStatus status = GateStatus.of("m1", "g", 9, GateStatus.SYNCED, many, List.of(), 30, Instant.EPOCH, 1000);

        assertThat(status.grants()).isEmpty();
        assertThat(status.grantsListed()).isFalse();
        assertThat(status.grantCount()).isEqualTo(1001);
        assertThat(status.grantsDigest()).isEqualTo(GateStatus.digest(many)).isNotEqualTo(GateStatus.digest(many.subList(0, 1000)));

        GateStatus read = EventJson.fromBytes(EventJson.toBytes(status), GateStatus.class);
        assertThat(read).isEqualTo(status);
        assertThat(GateStatus.of("m1", "g", 9, GateStatus.SYNCED, many, List.of(), 30, Instant.EPOCH, 1001).grants()).hasSize(1001);
    }

    @Test
    void theDigestIgnoresOrderButSeesEveryField() {
        List<Grant> some = grants(5);
        List<Grant> reversed = new ArrayList<>(some);
        java.util.Collections.reverse(reversed);
        Grant exclusive = new Grant(DOCUMENTED.repoGuid(), DOCUMENTED.repoName(), DOCUMENTED.device(), true,
                DOCUMENTED.grantedBy(), DOCUMENTED.grantedAt());

        assertThat(GateStatus.digest(reversed)).isEqualTo(GateStatus.digest(some));
        assertThat(GateStatus.digest(List.of(exclusive))).isNotEqualTo(GateStatus.digest(List.of(DOCUMENTED)));
        assertThat(GateStatus.digest(List.of())).isEqualTo("e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    }

    @Test
    void aRecordWrittenBeforeTheCountExistedReadsAsAFullList() {
        String old = """
                {"machine":"m1","gateId":"g","appliedVersion":3,"state":"synced","grants":[%s],"repos":[],
                 "heartbeatSeconds":30,"syncedAt":"2026-11-29T10:16:02.530Z"}""".formatted(EventJson.toJson(DOCUMENTED));

        GateStatus read = EventJson.fromBytes(old.getBytes(java.nio.charset.StandardCharsets.UTF_8), GateStatus.class);

        assertThat(read.grantsListed()).isTrue();
        assertThat(read.grantCount()).isEqualTo(1);
        assertThat(read.grantsDigest()).isEqualTo(GateStatus.digest(List.of(DOCUMENTED)));
    }
}
