package io.rediacc.gpu.contracts.events;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.time.Instant;
import java.util.HexFormat;
import java.util.List;

/**
 * What a gate enforces now, on {@link Topics#GATE_STATUS} (key = machine/gateId); published after
 * each applied version and on a heartbeat. A gate silent for 3 heartbeats counts as gone.
 *
 * <p>{@code grantCount} and {@code grantsDigest} always describe every grant the gate enforces;
 * the {@code grants} list itself is carried only up to the gate's cap ({@code grantsListed}):
 * 100,000 grants are a 19 MB record, which Kafka refuses, and a gate whose status cannot be
 * written never reports its applied version.
 *
 * @param state        {@code loading} until the gate has read the grants topic to its end, then {@code synced}
 * @param grants       every enforced grant when {@code grantsListed}, else empty
 * @param grantCount   how many grants the gate enforces
 * @param grantsDigest {@link #digest(List)} of the enforced grants
 * @param grantsListed whether {@code grants} lists them all
 * @param daemons      each served repo's daemon as last verified (empty in records written before the check existed)
 * @param epoch        the gate process's start (rises with every start, persisted in its state directory); with
 *                     {@code seq} the status's position: readers keep the highest (epoch, seq) per gate and drop
 *                     anything at or below it (a replay); 0 in records written before positions existed
 * @param seq          rises by one with every status of this epoch, from 1
 * @param grantsSignedAt the newest signed {@code ce_time} of the grant snapshot the gate holds (grant-service
 *                     re-signs its newest snapshot on a cadence); null while it holds none
 * @param grantsFrozen whether that time is older than the gate's freeze bound ({@code gate.grants-freeze-after}):
 *                     the gate may be kept from newer grants (a frozen topic, a cut-off feed, replays)
 */
public record GateStatus(String machine, String gateId, long appliedVersion, String state, List<Grant> grants,
                         List<RepoInfo> repos, int heartbeatSeconds, Instant syncedAt, int grantCount,
                         String grantsDigest, boolean grantsListed, List<DaemonStatus> daemons, long epoch, long seq,
                         Instant grantsSignedAt, boolean grantsFrozen) {

    public static final String LOADING = "loading";
    public static final String SYNCED = "synced";

    public GateStatus {
        grants = grants == null ? List.of() : List.copyOf(grants);
        repos = repos == null ? List.of() : List.copyOf(repos);
        daemons = daemons == null ? List.of() : List.copyOf(daemons);
        if (grantsDigest == null) {
            // Written before the count and digest existed (or built from the old constructor): the list was complete.
            grantCount = grants.size();
            grantsDigest = digest(grants);
            grantsListed = true;
        }
    }

    /** A status without position or freshness (the form before they existed). */
    public GateStatus(String machine, String gateId, long appliedVersion, String state, List<Grant> grants,
                      List<RepoInfo> repos, int heartbeatSeconds, Instant syncedAt, int grantCount,
                      String grantsDigest, boolean grantsListed, List<DaemonStatus> daemons) {
        this(machine, gateId, appliedVersion, state, grants, repos, heartbeatSeconds, syncedAt, grantCount, grantsDigest,
                grantsListed, daemons, 0, 0, null, false);
    }

    /** This status at position ({@code epoch}, {@code seq}) with the held snapshot's signed time. */
    public GateStatus at(long epoch, long seq, Instant grantsSignedAt, boolean grantsFrozen) {
        return new GateStatus(machine, gateId, appliedVersion, state, grants, repos, heartbeatSeconds, syncedAt, grantCount,
                grantsDigest, grantsListed, daemons, epoch, seq, grantsSignedAt, grantsFrozen);
    }

    /** Whether this status comes after one at ({@code epoch}, {@code seq}): a later epoch, or a higher seq in the same. */
    public boolean after(long epoch, long seq) {
        return this.epoch > epoch || this.epoch == epoch && this.seq > seq;
    }

    /** A status that lists every grant (the form before the count, digest and cap existed). */
    public GateStatus(String machine, String gateId, long appliedVersion, String state, List<Grant> grants,
                      List<RepoInfo> repos, int heartbeatSeconds, Instant syncedAt) {
        this(machine, gateId, appliedVersion, state, grants, repos, heartbeatSeconds, syncedAt, 0, null, true, List.of());
    }

    /** A status without daemon checks (the form before they existed). */
    public GateStatus(String machine, String gateId, long appliedVersion, String state, List<Grant> grants,
                      List<RepoInfo> repos, int heartbeatSeconds, Instant syncedAt, int grantCount,
                      String grantsDigest, boolean grantsListed) {
        this(machine, gateId, appliedVersion, state, grants, repos, heartbeatSeconds, syncedAt, grantCount, grantsDigest,
                grantsListed, List.of());
    }

    /** A status for {@code enforced}, listing the grants only when there are at most {@code maxListed}. */
    public static GateStatus of(String machine, String gateId, long appliedVersion, String state, List<Grant> enforced,
                                List<RepoInfo> repos, int heartbeatSeconds, Instant syncedAt, int maxListed) {
        boolean listed = enforced.size() <= maxListed;
        return new GateStatus(machine, gateId, appliedVersion, state, listed ? enforced : List.of(), repos,
                heartbeatSeconds, syncedAt, enforced.size(), digest(enforced), listed, List.of(), 0, 0, null, false);
    }

    /**
     * SHA-256 (lower-case hex) over the grants in a fixed order, independent of list order: each
     * grant as one line {@code repoGuid TAB repoName TAB device TAB exclusive TAB grantedBy TAB grantedAt}
     * (ISO-8601, "null" for an absent field), lines sorted, each ending in a newline, UTF-8.
     */
    public static String digest(List<Grant> grants) {
        List<String> lines = grants.stream()
                .map(g -> g.repoGuid() + "\t" + g.repoName() + "\t" + g.device() + "\t" + g.exclusive() + "\t"
                        + g.grantedBy() + "\t" + g.grantedAt() + "\n")
                .sorted()
                .toList();
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            for (String line : lines) {
                sha.update(line.getBytes(StandardCharsets.UTF_8));
            }
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("every Java platform has SHA-256", e);
        }
    }
}
