package io.rediacc.gpu.inventory.repository;

import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.inventory.support.FleetResources;
import io.rediacc.gpu.inventory.support.FleetTopics;
import io.rediacc.gpu.inventory.support.Inventories;
import io.smallrye.mutiny.subscription.Cancellable;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;

import static io.rediacc.gpu.inventory.support.FleetApi.awaitMachine;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

/**
 * The unfiltered GPU listing's page starts come from a pass over every GPU: it is redone after the
 * fleet's inventories changed, not every second while nothing did. The listing reads ages from a
 * ticker the test moves: no test waits for a refresh interval to pass.
 */
@QuarkusTest
@FleetResources
class GpuListingPassesTest {

    /** A page size no other test asks for: its page starts are this test's own. */
    private static final int SIZE = 7;
    private static final long PAST_REFRESH = GpuListing.ANCHORS_REFRESH.toNanos() + 1;

    @Inject
    GpuListing listing;

    @Inject
    FleetChanges changes;

    @Test
    void pageStartsAreNotReReadWhileNothingChangesAndAreAfterAMachineIsAdded() {
        AtomicLong ticker = new AtomicLong(System.nanoTime());
        // The listing hears a change before this later subscriber does (a broadcast, in subscription order).
        List<String> heard = new CopyOnWriteArrayList<>();
        Cancellable listening = changes.stream().filter(c -> "inventory".equals(c.kind()))
                .subscribe().with(c -> heard.add(c.machine()));
        listing.useTicker(ticker::get);
        try {
            String first = Inventories.uniqueMachine("passes");
            FleetTopics.inventory(Inventories.nvidiaHost(first, Inventories.now(), 2, "NVIDIA L4"));
            awaitMachine(first);
            await("the listing heard of " + first).atMost(Duration.ofSeconds(60)).until(() -> heard.contains(first));
            int heardBefore = heard.size();
            long settled = total(); // a pass of its own (the first for this page size), after the change
            long passes = listing.passes();

            // three refresh intervals with requests all along, and nothing changed: no new pass
            for (int i = 0; i < 3; i++) {
                ticker.addAndGet(PAST_REFRESH);
                assertThat(total()).isEqualTo(settled);
            }
            assertThat(heard).as("inventory changes heard meanwhile").hasSize(heardBefore);
            assertThat(listing.passes()).isEqualTo(passes);

            String second = Inventories.uniqueMachine("passes");
            FleetTopics.inventory(Inventories.nvidiaHost(second, Inventories.now(), 3, "NVIDIA L4"));
            awaitMachine(second);
            await("the listing heard of " + second).atMost(Duration.ofSeconds(60)).until(() -> heard.contains(second));
            ticker.addAndGet(PAST_REFRESH);
            await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100))
                    .untilAsserted(() -> assertThat(total()).isEqualTo(settled + 3));
            assertThat(listing.passes()).isGreaterThan(passes);
        } finally {
            listing.useTicker(System::nanoTime);
            listening.cancel();
        }
    }

    private long total() {
        return listing.anchors(SIZE).await().atMost(Duration.ofSeconds(30)).total();
    }
}
