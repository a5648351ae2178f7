package io.rediacc.gpu.gate.policy;

import io.rediacc.gpu.contracts.manifest.SocketEndpoint;

import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * The daemons' answers to {@code GET /volumes/{name}}, kept only while the gate follows that daemon's
 * {@code destroy} events.
 *
 * <p>Why: before it forwards a create that mounts a named volume, the gate reads the volume from the
 * daemon to judge how it is backed (a local volume's {@code device} can be a bind of any host path).
 * That round trip on every such create was a quarter of the gate's samples per create (issue 34). A volume's
 * driver and options never change while it exists (the daemon has no update for them), and another
 * volume can take its name only after its {@code destroy} event. So an answer stays true until that
 * event, and the pin watcher, which follows every repo daemon's {@code destroy} events of containers
 * and volumes, forgets the answer then ({@link #destroyed}).
 *
 * <p>It fails closed:
 * <ul>
 *   <li>nothing is kept or given for a daemon whose event stream is not live (before its head, after it
 *       ended or failed), and all of a daemon's answers are forgotten whenever a stream of it starts or
 *       stops, or sends a line the watcher cannot read;</li>
 *   <li>an answer read while any of that happened is not kept: {@link #beforeLookup} is taken before the
 *       request is sent and {@link #keep} drops the answer if the daemon's generation moved since;</li>
 *   <li>only a found volume's answer (200) is kept: a missing one may be made next;</li>
 *   <li>a removal the gate itself passes forgets before the daemon acts ({@link #destroyed} for
 *       {@code DELETE /volumes/{name}}, {@link #forgetAll} for a prune or a container's removal, which may take
 *       its anonymous volumes), so a create pipelined behind a delete is not judged on the deleted volume;</li>
 *   <li>an answer is kept at most {@link #MAX_AGE}: dockerd drops events for a subscriber that falls behind
 *       (its queue full for 100 ms), so a lost {@code destroy} leaves an answer stale that long at most;</li>
 *   <li>the verdict is never kept: every request judges the kept answer with its repo's rules of that moment,
 *       as it judges an answer just read.</li>
 * </ul>
 * What is left is the window the round trip had too: between the gate's read and the daemon's create,
 * the volume can be replaced (only through the gate, which judges the new one, or as root on the host),
 * and a removal through another connection is seen when its {@code destroy} event arrives.
 *
 * <p>Bounded by bytes, since a tenant chooses how many volumes it makes and how many labels each carries: at
 * most {@link #MAX_BYTES_PER_DAEMON} per daemon and {@link #MAX_BYTES} in all, an answer counted with its read
 * (a plain volume's answer is ~250 B and its read ~150 B, so ~2,500 volumes; the gate's heap is 26 MiB), answers
 * of at most {@link #MAX_ANSWER_BYTES}; past that the gate reads from the daemon as before. One repo filling its
 * share costs the others nothing.
 */
public final class VolumeAnswers {

    /** Bytes of answers kept at once, all daemons together. */
    public static final int MAX_BYTES = 1024 * 1024;
    /** Bytes of answers kept for one daemon (one repo's share). */
    public static final int MAX_BYTES_PER_DAEMON = 64 * 1024;
    /** A larger answer (many labels) is read from the daemon every time. */
    public static final int MAX_ANSWER_BYTES = 4 * 1024;
    /** What {@link #beforeLookup} gives when nothing read now may be kept. */
    public static final long DO_NOT_KEEP = -1;
    /** The longest an answer is kept, whatever the events say (a bound on a lost event). */
    public static final Duration MAX_AGE = Duration.ofSeconds(30);

    private final Map<SocketEndpoint, Daemon> daemons = new ConcurrentHashMap<>();
    /** Bytes of answers kept, all daemons together. */
    private final AtomicInteger held = new AtomicInteger();
    private final AtomicInteger count = new AtomicInteger();
    private final LongAdder answeredKept = new LongAdder();
    private final LongAdder answeredByDaemon = new LongAdder();
    private final LongSupplier nanoClock;

    public VolumeAnswers() {
        this(System::nanoTime);
    }

    /** @param nanoClock {@link System#nanoTime} but in tests */
    VolumeAnswers(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    /** One daemon's answers; guarded by itself (event-loop threads read, the pin watcher's thread forgets). */
    private static final class Daemon {
        int liveStreams;
        long generation;
        int bytes;
        final Map<String, Kept> answers = new HashMap<>();
    }

    /** An answer, its read (null when unreadable: judged from the bytes each time) and the bytes both cost. */
    private record Kept(byte[] answer, VolumeBacking backing, int cost, long keptAt) {
    }

    /** The kept answer's bytes for {@code volume} on {@code daemon}, or null when the daemon must be asked ({@link #stored}). */
    public byte[] answer(SocketEndpoint daemon, String volume) {
        StoredVolume kept = stored(daemon, volume);
        return kept == null ? null : kept.body();
    }

    /**
     * The kept answer for {@code volume} on {@code daemon} as a found volume with its read, or null when the
     * daemon must be asked.
     */
    public StoredVolume stored(SocketEndpoint daemon, String volume) {
        StoredVolume kept = null;
        Daemon d = daemons.get(daemon);
        if (d != null) {
            synchronized (d) {
                Kept k = d.liveStreams > 0 ? d.answers.get(volume) : null;
                if (k != null && nanoClock.getAsLong() - k.keptAt() > MAX_AGE.toNanos()) {
                    forget(d, volume); // read again from the daemon, and kept again from then
                } else if (k != null) {
                    kept = new StoredVolume(volume, 200, k.answer(), k.backing());
                }
            }
        }
        (kept == null ? answeredByDaemon : answeredKept).increment();
        return kept;
    }

    /** Taken before a lookup is sent, given back to {@link #keep} with its answer. */
    public long beforeLookup(SocketEndpoint daemon) {
        Daemon d = daemons.get(daemon);
        if (d == null) {
            return DO_NOT_KEEP;
        }
        synchronized (d) {
            return d.liveStreams > 0 ? d.generation : DO_NOT_KEEP;
        }
    }

    /**
     * Keeps the daemon's answer (status 200) for {@code volume}, read once here, unless anything changed since
     * {@code token}. Its cost against the bounds is its bytes and its read's ({@link VolumeBacking#footprint}).
     */
    public void keep(SocketEndpoint daemon, String volume, byte[] answer, long token) {
        if (token == DO_NOT_KEEP || answer == null || answer.length == 0 || answer.length > MAX_ANSWER_BYTES) {
            return;
        }
        Daemon d = daemons.get(daemon);
        if (d == null) {
            return;
        }
        VolumeBacking backing = VolumeBacking.readOrNull(volume, answer);
        int cost = answer.length + (backing == null ? 0 : backing.footprint());
        synchronized (d) {
            if (d.liveStreams == 0 || d.generation != token || d.answers.containsKey(volume)
                    || d.bytes + cost > MAX_BYTES_PER_DAEMON) {
                return;
            }
            if (held.addAndGet(cost) > MAX_BYTES) {
                held.addAndGet(-cost);
                return;
            }
            d.bytes += cost;
            count.incrementAndGet();
            d.answers.put(volume, new Kept(answer, backing, cost, nanoClock.getAsLong()));
        }
    }

    /** A stream of {@code daemon}'s events answered: from now on its destroys reach {@link #destroyed}. */
    public void streamLive(SocketEndpoint daemon) {
        Daemon d = daemons.computeIfAbsent(daemon, k -> new Daemon());
        synchronized (d) {
            forgetAll(d);
            d.liveStreams++;
        }
    }

    /** A stream that was live ended, failed or was stopped: destroys may go unseen. */
    public void streamGone(SocketEndpoint daemon) {
        Daemon d = daemons.get(daemon);
        if (d == null) {
            return;
        }
        synchronized (d) {
            forgetAll(d);
            d.liveStreams = Math.max(0, d.liveStreams - 1);
        }
    }

    /** The daemon destroyed {@code volume}: another may take its name. */
    public void destroyed(SocketEndpoint daemon, String volume) {
        Daemon d = daemons.get(daemon);
        if (d == null) {
            return;
        }
        synchronized (d) {
            d.generation++;
            forget(d, volume);
        }
    }

    /**
     * Any of {@code daemon}'s volumes may have gone: its stream sent something unreadable, or the gate passed a
     * prune or a container's removal.
     */
    public void forgetAll(SocketEndpoint daemon) {
        Daemon d = daemons.get(daemon);
        if (d == null) {
            return;
        }
        synchronized (d) {
            forgetAll(d);
        }
    }

    private void forget(Daemon d, String volume) {
        Kept gone = d.answers.remove(volume);
        if (gone != null) {
            d.bytes -= gone.cost();
            held.addAndGet(-gone.cost());
            count.decrementAndGet();
        }
    }

    private void forgetAll(Daemon d) {
        d.generation++;
        held.addAndGet(-d.bytes);
        count.addAndGet(-d.answers.size());
        d.bytes = 0;
        d.answers.clear();
    }

    /** Answers kept now, all daemons together. */
    public int size() {
        return count.get();
    }

    /** Bytes the answers kept now cost (theirs and their reads'), all daemons together. */
    public int bytes() {
        return held.get();
    }

    /** Volume reads {@link #stored} served from a kept answer, since start. */
    public long answeredKept() {
        return answeredKept.sum();
    }

    /** Volume reads {@link #stored} left to the daemon, since start. */
    public long answeredByDaemon() {
        return answeredByDaemon.sum();
    }
}
