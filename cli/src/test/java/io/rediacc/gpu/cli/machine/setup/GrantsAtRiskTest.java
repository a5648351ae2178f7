package io.rediacc.gpu.cli.machine.setup;

import io.rediacc.gpu.contracts.events.Grant;
import org.junit.jupiter.api.Test;

import java.time.Instant;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class GrantsAtRiskTest {

    private static Grant grant(String repo, String device, boolean exclusive) {
        return new Grant("6a994358-4cb2-4722-a6ee-4a86ddeefdaf", repo, device, exclusive, "op", Instant.EPOCH);
    }

    private final GrantsAtRisk risk = new GrantsAtRisk("local-gpu", List.of(
            grant("gpu-a", "nvidia.com/gpu=0", false), grant("gpu-b", "nvidia.com/gpu=0", false),
            grant("gpu-a", "rediacc.io/dri=renderD128", true), grant("gpu-c", "nvidia.com/gpu=all", true)));

    @Test
    void everyGrantedNameIsGuardedOnce() {
        assertThat(risk.guardedNames()).containsExactly("nvidia.com/gpu=0", "nvidia.com/gpu=all", "rediacc.io/dri=renderD128");
    }

    @Test
    void aRefusedSetupListsEachGrantOfTheLostNamesWithTheRevokeThatFreesIt() {
        assertThat(risk.refusal(List.of("nvidia.com/gpu=0", "nvidia.com/gpu=all"))).isEqualTo("""
                setup of local-gpu refused: it would remove CDI device(s) that hold grants, and changed nothing on the machine:
                  gpu-a@local-gpu holds nvidia.com/gpu=0: rdc repo gpu revoke gpu-a@local-gpu --device nvidia.com/gpu=0
                  gpu-b@local-gpu holds nvidia.com/gpu=0: rdc repo gpu revoke gpu-b@local-gpu --device nvidia.com/gpu=0
                  gpu-c@local-gpu holds nvidia.com/gpu=all (exclusive): rdc repo gpu revoke gpu-c@local-gpu --device nvidia.com/gpu=all
                revoke those grants first, or run rdc machine setup local-gpu --force to remove the devices anyway (their grants \
                become orphaned: the gate refuses them until the devices return)""");
    }

    @Test
    void eachGrantedNameIsPassedToPrepareAsAGuard() {
        assertThat(risk.guardArguments(false)).containsExactly("--guard-grant", "nvidia.com/gpu=0", "--guard-grant",
                "nvidia.com/gpu=all", "--guard-grant", "rediacc.io/dri=renderD128");
        assertThat(risk.notice(false)).isEmpty();
    }

    @Test
    void whenGrantServiceCannotBeReadTheMachineGuardsByItsOwnCopyAndRdcSaysSo() {
        GrantsAtRisk unknown = GrantsAtRisk.unreadable("local-gpu", "503 grant-service is not ready");

        // no copy it can trust: prepare removes no CDI name (MachineSideSetupGuardTest holds node-agent to that)
        assertThat(unknown.guardArguments(false)).containsExactly("--require-grant-copy");
        assertThat(unknown.notice(false)).contains("cannot read the grants of local-gpu from grant-service (503 grant-service"
                + " is not ready): the machine guards them by docker-gate's verified copy of its grants instead; without a copy"
                + " it can trust, setup removes no CDI device (run again with --force to remove them anyway)");
        assertThat(unknown.guardArguments(true)).isEmpty();
        assertThat(unknown.notice(true)).hasValueSatisfying(n -> assertThat(n).contains("with --force"));
        assertThat(unknown.refusal(List.of("nvidia.com/gpu=0"))).contains("\n  nvidia.com/gpu=0: guarded by the machine "
                + "itself (grant-service did not list it; the machine's refusal above says why)\n");
    }
}
