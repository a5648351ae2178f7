package io.rediacc.gpu.agent.machine;

import io.rediacc.gpu.agent.config.AgentSettings;
import io.rediacc.gpu.agent.host.HostRoot;
import io.rediacc.gpu.contracts.events.Grant;
import io.rediacc.gpu.contracts.signing.GrantSnapshotCopy;
import io.rediacc.gpu.contracts.signing.SignerKeys;
import io.rediacc.gpu.contracts.signing.SigningKeys;
import io.rediacc.gpu.contracts.text.RevokeHint;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.PublicKey;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;

/**
 * The machine's own record of what it grants: docker-gate's copy of each snapshot it applied
 * ({@code grants-<machine>.json} in its state directory), verified with grant-service's key exactly as the gate
 * verifies it ({@link GrantSnapshotCopy}). It guards a setup run on the machine itself ({@code renet setup}, the
 * boot-time unit), which has no grant-service to ask. A copy that is there but does not verify fails closed: which
 * names hold grants cannot be told, so setup removes none without {@code --force}.
 */
public final class GateGrantCopies {

    private GateGrantCopies() {
    }

    /**
     * The guard the gate's copies give.
     *
     * @param copyRequired whether having no copy at all counts as not knowing (the caller could not read the grants
     *                     elsewhere: rdc when grant-service did not answer); otherwise no copy means no grants applied here
     */
    public static GrantGuard guard(AgentSettings settings, boolean force, boolean copyRequired, Instant now) {
        HostRoot host = settings.host();
        String dir = host.hostPath(settings.gateStateDir());
        Map<String, Path> copies;
        try {
            copies = GrantSnapshotCopy.files(settings.gateStateDir());
        } catch (IOException e) {
            return GrantGuard.unknown("docker-gate's state directory " + dir + " cannot be read (" + host.toHostPaths(
                    String.valueOf(e.getMessage())) + "); run setup as root", force);
        }
        if (copies.isEmpty()) {
            return copyRequired
                    ? GrantGuard.unknown("the grants could not be read from grant-service, and this machine holds no copy of"
                            + " them (no grants-<machine>.json in " + dir + ")", force)
                    : new GrantGuard(Set.of(), force);
        }
        String keyFile = host.hostPath(settings.grantsKey());
        PublicKey key;
        try {
            key = SigningKeys.parsePublic(Files.readString(settings.grantsKey(), StandardCharsets.US_ASCII));
        } catch (IOException | IllegalArgumentException e) {
            return GrantGuard.unknown("docker-gate's copy of the grants in " + dir + " cannot be verified: grant-service's key "
                    + keyFile + " cannot be read (" + host.toHostPaths(String.valueOf(e.getMessage())) + "; rdc machine setup"
                    + " writes it)", force);
        }
        Set<String> granted = new HashSet<>();
        Map<String, List<String>> holders = new TreeMap<>();
        for (Map.Entry<String, Path> copy : copies.entrySet()) {
            GrantSnapshotCopy.Loaded loaded = GrantSnapshotCopy.load(copy.getValue(), copy.getKey(),
                    SignerKeys.grantServiceOnly(key), now);
            if (loaded instanceof GrantSnapshotCopy.Refused r) {
                return GrantGuard.unknown("docker-gate's copy of the grants " + host.hostPath(copy.getValue()) + " cannot be"
                        + " trusted (" + r.why() + "); docker-gate rewrites it when it next applies a snapshot from the grants"
                        + " topic", force);
            }
            if (loaded instanceof GrantSnapshotCopy.Verified v) {
                for (Grant g : v.snapshot().grants()) {
                    granted.add(g.device());
                    holders.computeIfAbsent(g.device(), n -> new ArrayList<>()).add(RevokeHint.line(g, v.snapshot().machine()));
                }
            }
        }
        return new GrantGuard(granted, holders, null, force);
    }
}
