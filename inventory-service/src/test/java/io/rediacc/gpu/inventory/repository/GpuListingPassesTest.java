package io.rediacc.gpu.inventory.repository;

import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.inventory.support.FleetResources;
import io.rediacc.gpu.inventory.support.FleetTopics;
import io.rediacc.gpu.inventory.support.Inventories;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Duration;

import static io.rediacc.gpu.inventory.support.FleetApi.awaitMachine;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The unfiltered GPU listing's page starts come from a pass over every GPU: it is redone after the
 * fleet's inventories changed, not every second while nothing did.
 */
@QuarkusTest
@FleetResources
class GpuListingPassesTest {

    /** A page size no other test asks for: its page starts are this test's own. */
    private static final int SIZE = 7;

    @Inject
    GpuListing listing;

    @Test
    void pageStartsAreNotReReadWhileNothingChangesAndAreAfterAMachineIsAdded() throws InterruptedException {
        String first = Inventories.uniqueMachine("passes");
        FleetTopics.inventory(Inventories.nvidiaHost(first, Inventories.now(), 2, "NVIDIA L4"));
        awaitMachine(first);
        // the machine's change notification may come after the first pass: let that pass settle
        Thread.sleep(GpuListing.ANCHORS_REFRESH.toMillis() + 500);
        total();
        Thread.sleep(GpuListing.ANCHORS_REFRESH.toMillis() + 500);
        long settled = total();
        long passes = listing.passes();

        // three times the refresh interval with requests all along, and nothing changed: no new pass
        long until = System.nanoTime() + 3 * GpuListing.ANCHORS_REFRESH.toNanos();
        while (System.nanoTime() < until) {
            assertThat(total()).isEqualTo(settled);
            Thread.sleep(100);
        }
        assertThat(listing.passes()).isEqualTo(passes);

        String second = Inventories.uniqueMachine("passes");
        FleetTopics.inventory(Inventories.nvidiaHost(second, Inventories.now(), 3, "NVIDIA L4"));
        awaitMachine(second);
        await().atMost(Duration.ofSeconds(20)).pollInterval(Duration.ofMillis(100))
                .untilAsserted(() -> assertThat(total()).isEqualTo(settled + 3));
        assertThat(listing.passes()).isGreaterThan(passes);
    }

    private long total() {
        return listing.anchors(SIZE).await().atMost(Duration.ofSeconds(10)).total();
    }
}
