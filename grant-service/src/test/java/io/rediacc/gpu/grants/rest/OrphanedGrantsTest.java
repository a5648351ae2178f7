package io.rediacc.gpu.grants.rest;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.grants.testing.Fleet;
import io.rediacc.gpu.grants.testing.GrantApi;
import io.rediacc.gpu.grants.testing.TestMachine;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.rediacc.gpu.testsupport.PostgresTestResource;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/** A grant whose CDI device a setup removed (--force) is shown as orphaned in REST until the device returns. */
@QuarkusTest
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class OrphanedGrantsTest {

    private final GrantApi api = new GrantApi();

    @Test
    void aGrantWhoseDeviceTheInventoryNoLongerDefinesIsOrphanedUntilItReturns() {
        RepoInfo a = Fleet.repo("a");
        TestMachine m = TestMachine.withRepos(api, "orphans", a);
        api.grant(m.ref(a), "nvidia.com/gpu=1", false, "0");
        api.grant(m.ref(a), "rediacc.io/dri=renderD128", false, "0");
        assertThat(api.machineGrants(m.name).<List<String>>path("orphaned")).isEmpty();

        // setup --install-nvidia-toolkit false --force: the NVIDIA spec is gone, the DRM name stays
        Map<String, List<String>> withoutNvidia = new LinkedHashMap<>(Fleet.TWO_NVIDIA_GPUS);
        withoutNvidia.keySet().removeIf(name -> name.startsWith("nvidia.com/"));
        TestMachine.fleet().publishInventory(Fleet.inventory(m.name, withoutNvidia, m.repos));

        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                assertThat(api.machineGrants(m.name).<List<String>>path("orphaned")).containsExactly("nvidia.com/gpu=1"));
        assertThat(api.machineGrants(m.name).<List<String>>path("grants.device"))
                .containsExactlyInAnyOrder("nvidia.com/gpu=1", "rediacc.io/dri=renderD128"); // kept, not revoked

        // the device is back (setup ran again): nothing is orphaned
        TestMachine.fleet().publishInventory(m.inventory());
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                assertThat(api.machineGrants(m.name).<List<String>>path("orphaned")).isEmpty());
    }
}
