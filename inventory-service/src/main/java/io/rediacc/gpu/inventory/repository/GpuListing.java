package io.rediacc.gpu.inventory.repository;

import io.rediacc.gpu.inventory.api.FleetGpu;
import io.smallrye.mutiny.Uni;
import io.vertx.mutiny.sqlclient.Pool;
import io.vertx.mutiny.sqlclient.Row;
import io.vertx.mutiny.sqlclient.Tuple;
import jakarta.enterprise.context.ApplicationScoped;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * The fleet's GPUs in listing order, (machine, GPU index, row id), read by key rather than by
 * offset: a page after a known GPU is an index range scan however deep it is (index
 * {@code gpu_listing}). A page asked for by number, without a cursor, needs the key it starts at:
 * for the unfiltered listing those keys and the total come from one index-only pass over the
 * GPUs, redone in the background while requests keep being answered from the previous pass; a
 * filtered listing counts and skips its matches on each request.
 * <p>
 * A pass reads every GPU (about 50 ms of the database's CPU at 80,000 GPUs), so it is redone only
 * when the fleet's inventories changed: at most {@link #ANCHORS_REFRESH} after a change any
 * replica committed (heard through {@link FleetChanges}, the dashboard's {@code LISTEN}, which
 * fires when a machine appears, goes or its content changes — the only writes that change the GPU
 * rows), and at least every {@link #ANCHORS_MAX_AGE} in case a notification was lost while the
 * listener reconnected. Redone every second regardless, it took the database's CPU from the very
 * requests it serves for a twentieth of every second (docs/BENCHMARKS.md, fleet scale).
 */
@ApplicationScoped
public class GpuListing {

    /** How old the unfiltered listing's page starts and total may get before a new pass starts. */
    static final Duration ANCHORS_REFRESH = Duration.ofSeconds(1);
    /** How old they may get when no change was heard. */
    static final Duration ANCHORS_MAX_AGE = Duration.ofSeconds(60);
    private static final int ANCHOR_SIZES_KEPT = 8;
    private static final String COLUMNS = "machine, gpu_index, vendor, name, uuid, pci_bus_id, driver_version,"
            + " memory_mib, render_node, mig_mode, id";
    private static final String ORDER = " ORDER BY machine, gpu_index, id";
    private static final String ANCHORS = "SELECT machine, gpu_index, id FROM (SELECT machine, gpu_index, id,"
            + " row_number() OVER (" + ORDER + ") - 1 AS n FROM gpu) k WHERE n % $1 = 0 ORDER BY n";
    private static final String TOTAL = "SELECT count(*) FROM gpu";
    /** The kind of {@link FleetChange} a machine's GPU rows change with (a machine added, removed or changed). */
    private static final String INVENTORY_CHANGE = "inventory";

    /** Where a page starts: at this GPU, or after it. */
    public record Key(String machine, int gpuIndex, long id) {
    }

    /** A GPU and its key. */
    public record Listed(FleetGpu gpu, Key key) {
    }

    /** The first key of every page of {@code size} (in page order) and the number of GPUs. */
    public record Anchors(List<Key> pageStarts, long total) {
    }

    private final Pool pool;
    private final Map<Integer, CachedAnchors> anchors = new ConcurrentHashMap<>();
    /** Inventory changes heard so far; a pass remembers the count it started at. */
    private final AtomicLong changesHeard = new AtomicLong();
    private final AtomicLong passes = new AtomicLong();
    /** Where the page starts' age is read from: the monotonic clock, or a test's ticker. */
    private volatile LongSupplier nanoTime = System::nanoTime;

    public GpuListing(Pool pool, FleetChanges changes) {
        this.pool = pool;
        changes.stream().filter(change -> INVENTORY_CHANGE.equals(change.kind()))
                .subscribe().with(change -> changesHeard.incrementAndGet());
    }

    /** Passes over the GPUs so far (tests: a pass is not redone while nothing changed). */
    long passes() {
        return passes.get();
    }

    /** Reads ages from {@code ticker} (nanoseconds, as {@link System#nanoTime}): a test moves time instead of sleeping. */
    void useTicker(LongSupplier ticker) {
        nanoTime = ticker;
    }

    /** Up to {@code limit} GPUs from {@code from} on ({@code inclusive}) or from the start ({@code from} null). */
    public Uni<List<Listed>> page(String vendor, String product, Key from, boolean inclusive, int limit) {
        List<Object> params = new ArrayList<>();
        List<String> where = filters(vendor, product, params);
        if (from != null) {
            where.add("(machine, gpu_index, id) " + (inclusive ? ">=" : ">") + " ($" + (params.size() + 1)
                    + ", $" + (params.size() + 2) + ", $" + (params.size() + 3) + ")");
            params.add(from.machine());
            params.add(from.gpuIndex());
            params.add(from.id());
        }
        params.add(limit);
        String sql = "SELECT " + COLUMNS + " FROM gpu" + where(where) + ORDER + " LIMIT $" + params.size();
        return pool.preparedQuery(sql).execute(Tuple.from(params)).map(rows -> {
            List<Listed> listed = new ArrayList<>();
            for (Row r : rows) {
                Key key = new Key(r.getString(0), r.getInteger(1), r.getLong(10));
                listed.add(new Listed(new FleetGpu(key.machine(), key.gpuIndex(), r.getString(2), r.getString(3),
                        r.getString(4), r.getString(5), r.getString(6), r.getLong(7), r.getString(8), r.getString(9)),
                        key));
            }
            return listed;
        });
    }

    /** Number of GPUs that match (a filter is given: the unfiltered listing takes {@link #anchors}). */
    public Uni<Long> count(String vendor, String product) {
        List<Object> params = new ArrayList<>();
        String sql = "SELECT count(*) FROM gpu" + where(filters(vendor, product, params));
        return pool.preparedQuery(sql).execute(Tuple.from(params)).map(rows -> rows.iterator().next().getLong(0));
    }

    /** The key of the {@code offset}-th match, null past the end; skips through the index, not the rows. */
    public Uni<Key> keyAt(String vendor, String product, long offset) {
        List<Object> params = new ArrayList<>();
        List<String> where = filters(vendor, product, params);
        params.add(offset);
        String sql = "SELECT machine, gpu_index, id FROM gpu" + where(where) + ORDER + " OFFSET $" + params.size()
                + " LIMIT 1";
        return pool.preparedQuery(sql).execute(Tuple.from(params)).map(rows -> {
            var it = rows.iterator();
            if (!it.hasNext()) {
                return null;
            }
            Row r = it.next();
            return new Key(r.getString(0), r.getInteger(1), r.getLong(2));
        });
    }

    /**
     * Page starts and total of the unfiltered listing, at most {@link #ANCHORS_REFRESH} old plus the
     * time of one pass; only the first requests for a page size wait for a pass.
     */
    public Uni<Anchors> anchors(int size) {
        if (anchors.size() >= ANCHOR_SIZES_KEPT && !anchors.containsKey(size)) {
            anchors.clear();
        }
        CachedAnchors cached = anchors.computeIfAbsent(size, s -> new CachedAnchors());
        Anchors current = cached.value;
        if (current == null) {
            long heard = changesHeard.get();
            return loadAnchors(size).invoke(loaded -> cached.loaded(loaded, heard, nanoTime.getAsLong()));
        }
        long age = nanoTime.getAsLong() - cached.loadedAt;
        long heard = changesHeard.get();
        // a change heard after the pass started may be missing from it: the next request redoes it
        boolean changed = heard != cached.changesHeard && age > ANCHORS_REFRESH.toNanos();
        if ((changed || age > ANCHORS_MAX_AGE.toNanos()) && cached.refreshing.compareAndSet(false, true)) {
            loadAnchors(size).subscribe().with(loaded -> cached.loaded(loaded, heard, nanoTime.getAsLong()),
                    e -> cached.refreshing.set(false));
        }
        return Uni.createFrom().item(current);
    }

    private Uni<Anchors> loadAnchors(int size) {
        passes.incrementAndGet();
        return pool.preparedQuery(ANCHORS).execute(Tuple.of(size)).chain(rows -> {
            List<Key> starts = new ArrayList<>(rows.size());
            for (Row r : rows) {
                starts.add(new Key(r.getString(0), r.getInteger(1), r.getLong(2)));
            }
            return pool.preparedQuery(TOTAL).execute().map(count -> new Anchors(starts, count.iterator().next().getLong(0)));
        });
    }

    /** The last pass for one page size, and whether a new one is running. */
    private static final class CachedAnchors {
        final AtomicBoolean refreshing = new AtomicBoolean();
        volatile Anchors value;
        volatile long loadedAt;
        /** The inventory changes heard when the pass started: the pass holds at least those. */
        volatile long changesHeard;

        void loaded(Anchors anchors, long heardAtStart, long now) {
            changesHeard = heardAtStart;
            loadedAt = now;
            value = anchors;
            refreshing.set(false);
        }
    }

    private static List<String> filters(String vendor, String product, List<Object> params) {
        List<String> clauses = new ArrayList<>();
        if (vendor != null) {
            params.add(vendor.toLowerCase(Locale.ROOT));
            clauses.add("lower(vendor) = $" + params.size());
        }
        if (product != null) {
            params.add(LikePattern.contains(product));
            clauses.add("lower(name) LIKE $" + params.size() + " ESCAPE '" + LikePattern.ESCAPE + "'");
        }
        return clauses;
    }

    private static String where(List<String> clauses) {
        return clauses.isEmpty() ? "" : " WHERE " + String.join(" AND ", clauses);
    }
}
