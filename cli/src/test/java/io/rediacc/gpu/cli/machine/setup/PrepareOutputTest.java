package io.rediacc.gpu.cli.machine.setup;

import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.failure.Failure;
import io.rediacc.gpu.contracts.events.Grant;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * What rdc machine setup makes of node-agent prepare's output (issue 33, problems 1 and 9): a setup that would
 * orphan live grants ends with exit 4 and each grant's revoke, {@code --force} warns per orphaned grant, and the
 * machine key's {@code unchanged} is printed once (by its own step), not again by prepare.
 */
class PrepareOutputTest {

    private static Grant grant(String repo, String device, boolean exclusive) {
        return new Grant("6a994358-4cb2-4722-a6ee-4a86ddeefdaf", repo, device, exclusive, "op", Instant.EPOCH);
    }

    private final GrantsAtRisk grants = new GrantsAtRisk("local-gpu", List.of(grant("gpu-a", "nvidia.com/gpu=0", false),
            grant("gpu-a-fork", "nvidia.com/gpu=all", true), grant("gpu-a", "rediacc.io/dri=renderD128", false)));
    private final List<String> printed = new ArrayList<>();
    private final List<String> warned = new ArrayList<>();
    private final PrepareOutput output = new PrepareOutput(printed::add);

    private void prepareSays(String... lines) {
        for (String line : lines) {
            output.accept(line);
        }
    }

    @Test
    void aSetupThatWouldOrphanGrantsEndsWithEachGrantsRevokeAndExitFour() {
        // as node-agent prepare --install-nvidia-toolkit false --guard-grant ... prints it (SetupGuardsGrantsTest)
        prepareSays("@would-orphan nvidia.com/gpu=0", "@would-orphan nvidia.com/gpu=all",
                "node-agent setup: refused - it would remove CDI device(s) that hold grants: nvidia.com/gpu=0, "
                        + "nvidia.com/gpu=all; nothing was changed",
                "machine key: unchanged - /etc/rediacc/gpu/machine-key.pem (key id ab12)",
                "@machine local-gpu", "@inventory-generated-at 2026-12-05T10:00:00Z", "@repos 2");

        assertThat(printed).containsExactly("node-agent setup: refused - it would remove CDI device(s) that hold grants: "
                + "nvidia.com/gpu=0, nvidia.com/gpu=all; nothing was changed");
        assertThatThrownBy(() -> output.judgeGrants(grants, warned::add)).isInstanceOfSatisfying(Failure.class, f -> {
            assertThat(f.exitCode()).isEqualTo(ExitCodes.CONFLICT);
            assertThat(f.getMessage()).isEqualTo(grants.refusal(List.of("nvidia.com/gpu=0", "nvidia.com/gpu=all")))
                    .contains("rdc repo gpu revoke gpu-a@local-gpu --device nvidia.com/gpu=0")
                    .contains("rdc repo gpu revoke gpu-a-fork@local-gpu --device nvidia.com/gpu=all")
                    .doesNotContain("renderD128");
        });
        assertThat(warned).isEmpty();
        assertThat(output.reportedMachine()).contains("local-gpu");
        assertThat(output.repos()).contains(2);
    }

    @Test
    void forceWarnsOncePerGrantItOrphaned() {
        prepareSays("@orphaned nvidia.com/gpu=0", "grants: changed - orphaned the grants of nvidia.com/gpu=0 (--force)",
                "node-agent setup: changed - removed /etc/cdi/nvidia.yaml");

        output.judgeGrants(grants, warned::add);

        assertThat(warned).containsExactly("orphaned by --force: gpu-a@local-gpu holds nvidia.com/gpu=0: "
                + "rdc repo gpu revoke gpu-a@local-gpu --device nvidia.com/gpu=0");
        assertThat(printed).containsExactly("grants: changed - orphaned the grants of nvidia.com/gpu=0 (--force)",
                "node-agent setup: changed - removed /etc/cdi/nvidia.yaml");
    }

    @Test
    void theMachineKeyIsReportedOnceNotAgainByPrepare() {
        prepareSays("node-agent setup: unchanged - 3 GPU(s)",
                "machine key: unchanged - /etc/rediacc/gpu/machine-key.pem (key id ab12)",
                "machine key: failed - /etc/rediacc/gpu/machine-key.pem is unreadable",
                "@public-key MCowBQYDK2VwAyEA");

        output.judgeGrants(grants, warned::add);

        assertThat(printed).containsExactly("node-agent setup: unchanged - 3 GPU(s)",
                "machine key: failed - /etc/rediacc/gpu/machine-key.pem is unreadable");
        assertThat(warned).isEmpty();
    }
}
