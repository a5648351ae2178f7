package io.rediacc.gpu.gate.policy;

import org.junit.jupiter.api.Test;

import java.util.Set;

import static io.rediacc.gpu.gate.policy.PolicyTestKit.REPO;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.create;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.refusal;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.withHostConfig;
import static org.assertj.core.api.Assertions.assertThat;

/** A granted name whose CDI device a setup removed: refused by the gate with setup named, not left to the runtime. */
class OrphanedGrantRulesTest {

    /** Grants held by the test repo, of which {@code gone} are no longer defined on the machine. */
    private static GrantLookup grants(Set<String> held, Set<String> gone) {
        return new GrantLookup() {
            @Override
            public boolean loaded() {
                return true;
            }

            @Override
            public boolean holds(String repoGuid, String cdiName) {
                return repoGuid.equals(REPO.guid()) && held.contains(cdiName);
            }

            @Override
            public boolean orphaned(String cdiName) {
                return gone.contains(cdiName);
            }
        };
    }

    private static String devices(String... names) {
        return withHostConfig("\"DeviceRequests\":[{\"Driver\":\"cdi\",\"DeviceIDs\":[\"" + String.join("\",\"", names) + "\"]}]");
    }

    @Test
    void anOrphanedGrantIsRefusedNamingSetupAndRevoke() {
        Refusal r = refusal(create(devices("nvidia.com/gpu=0"),
                grants(Set.of("nvidia.com/gpu=0"), Set.of("nvidia.com/gpu=0"))));

        assertThat(r.status()).isEqualTo(403);
        assertThat(r.rule()).isEqualTo("cdi-orphaned");
        assertThat(r.message()).isEqualTo("device nvidia.com/gpu=0 is granted to repo gpu-a, but machine m1's CDI specs no longer "
                + "define it (a setup removed it, so the grant is orphaned); once the device is back, rerun setup to define it "
                + "again: rdc machine setup m1; or free the grant: rdc repo gpu revoke gpu-a@m1 --device nvidia.com/gpu=0");
    }

    @Test
    void everyOrphanedNameOfTheRequestIsNamed() {
        Refusal r = refusal(create(devices("rediacc.io/dri=renderD128", "nvidia.com/gpu=0", "nvidia.com/gpu=1"),
                grants(Set.of("rediacc.io/dri=renderD128", "nvidia.com/gpu=0", "nvidia.com/gpu=1"),
                        Set.of("nvidia.com/gpu=0", "nvidia.com/gpu=1"))));
        assertThat(r.rule()).isEqualTo("cdi-orphaned");
        assertThat(r.message()).startsWith("device nvidia.com/gpu=0 is granted").endsWith("(also orphaned: nvidia.com/gpu=1)");
    }

    @Test
    void aNameNotGrantedIsStillRefusedAsNotGrantedFirst() {
        Refusal r = refusal(create(devices("nvidia.com/gpu=0"), grants(Set.of(), Set.of("nvidia.com/gpu=0"))));
        assertThat(r.rule()).isEqualTo("cdi-not-granted");
    }

    @Test
    void aDefinedGrantedNamePasses() {
        assertThat(create(devices("nvidia.com/gpu=0"), grants(Set.of("nvidia.com/gpu=0"), Set.of("nvidia.com/gpu=1"))))
                .isEqualTo(new Verdict.Allow());
    }
}
