package io.rediacc.gpu.cli.machine;

import io.rediacc.gpu.cli.machine.HolderMerge.ReportedOrphans;
import io.rediacc.gpu.contracts.api.CdiDeviceView;
import io.rediacc.gpu.contracts.api.Holder;
import io.rediacc.gpu.contracts.api.OrphanedDevice;
import io.rediacc.gpu.contracts.events.Grant;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class HolderMergeTest {

    static final String A = "3f2b8c1e-9d4a-4e57-8f0a-2c6d7e9b1a43";
    static final String B = "7c1d2e3f-4a5b-4c6d-8e7f-9a0b1c2d3e4f";
    static final ReportedOrphans NONE = ReportedOrphans.NONE;

    @Test
    void holdersTheGateAndTheDatabaseAgreeOnAreNotFlagged() {
        var rows = HolderMerge.merge(List.of(device("nvidia.com/gpu=0", gate("train-a", A, true))),
                List.of(db("train-a", A, "nvidia.com/gpu=0", true)), NONE);

        assertThat(rows).singleElement().satisfies(r -> assertThat(r.holders()).containsExactly("train-a (exclusive)"));
    }

    @Test
    void aGrantNotYetEnforcedIsDbOnlyAndARevocationNotYetEnforcedIsGateOnly() {
        var rows = HolderMerge.merge(List.of(device("nvidia.com/gpu=all", gate("train-a", A, false))),
                List.of(db("infer-b", B, "nvidia.com/gpu=all", false)), NONE);

        assertThat(rows.get(0).holders()).containsExactly("infer-b (db only)", "train-a (gate only)");
    }

    @Test
    void aDifferenceInExclusivenessIsShown() {
        var rows = HolderMerge.merge(List.of(device("nvidia.com/gpu=0", gate("train-a", A, false))),
                List.of(db("train-a", A, "nvidia.com/gpu=0", true)), NONE);

        assertThat(rows.get(0).holders()).containsExactly("train-a (exclusive in db only)");
    }

    @Test
    void aGrantOfANameTheMachineNoLongerDefinesIsListedApartAndOrphanedWhereGrantServiceSaysSo() {
        var rows = HolderMerge.merge(List.of(device("nvidia.com/gpu=0")), List.of(db("eval-c", B, "nvidia.com/gpu=3", false)),
                ReportedOrphans.of(List.of("nvidia.com/gpu=3"), List.of()));

        assertThat(rows).hasSize(2);
        assertThat(rows.get(1).device()).isEqualTo("nvidia.com/gpu=3");
        assertThat(rows.get(1).orphaned()).isTrue();
        assertThat(rows.get(1).holders()).containsExactly("eval-c (db only)");
    }

    @Test
    void aNameNoServiceReportsOrphanedIsNotCalledOrphanedWhateverTheTwoAnswersShow() {
        // inventory-service's newer inventory lacks gpu=3 while grant-service's still defines it: the services
        // decide when a grant is orphaned, rdc does not guess it from two answers taken apart
        var rows = HolderMerge.merge(List.of(device("nvidia.com/gpu=0")), List.of(db("eval-c", B, "nvidia.com/gpu=3", false)), NONE);

        assertThat(rows.get(1).device()).isEqualTo("nvidia.com/gpu=3");
        assertThat(rows.get(1).orphaned()).isFalse();
    }

    @Test
    void aNameTheGatesStillHoldButTheInventoryNoLongerDefinesIsListedWithTheGatesHolders() {
        var rows = HolderMerge.merge(List.of(device("nvidia.com/gpu=0")), List.of(db("eval-c", B, "nvidia.com/gpu=3", false)),
                ReportedOrphans.of(List.of(), List.of(new OrphanedDevice("nvidia.com/gpu=3", List.of(gate("eval-c", B, false))))));

        assertThat(rows.get(1).device()).isEqualTo("nvidia.com/gpu=3");
        assertThat(rows.get(1).orphaned()).isTrue();
        assertThat(rows.get(1).holders()).containsExactly("eval-c");
    }

    @Test
    void withoutTheDatabasesViewNothingIsFlagged() {
        var rows = HolderMerge.merge(List.of(device("nvidia.com/gpu=0", gate("train-a", A, true))), null, NONE);

        assertThat(rows.get(0).holders()).containsExactly("train-a (exclusive)");
    }

    private static CdiDeviceView device(String name, Holder... holders) {
        return new CdiDeviceView(name, List.of(), "/etc/cdi/nvidia.yaml", null, List.of(holders));
    }

    private static Holder gate(String repo, String guid, boolean exclusive) {
        return new Holder(repo, guid, exclusive, "gate", List.of());
    }

    private static Grant db(String repo, String guid, String device, boolean exclusive) {
        return new Grant(guid, repo, device, exclusive, "alice", Instant.EPOCH);
    }
}
