package io.rediacc.gpu.gate.policy;

import java.util.List;
import java.util.Optional;

/**
 * What repos may reach on this host, as the gate's start-up wiring knows it (the repos manifest,
 * the gate's own files, what each repo daemon reports about itself). The policy asks on every
 * request that names a host path, so an implementation answers from an immutable snapshot.
 */
public interface HostAccess {

    /**
     * Host paths no repo may reach, whatever its {@code hostPaths} say, on top of the built-in ones
     * ({@link ProtectedPath#BUILT_IN}): the gate's state and manifest, the manifest's sockets and
     * their directories, each repo daemon's configuration directory and data root.
     */
    List<ProtectedPath> protectedPaths();

    /** What one repo may reach: its host path roots and the volume and log drivers listed for it. */
    RepoAllowance allowance(RepoIdentity repo);

    /**
     * The path as the host resolves it now: symlinks of the longest existing prefix resolved, the
     * rest appended (the daemon creates missing bind sources through the same symlinks). Empty when
     * it cannot be resolved (a dangling symlink, no permission): the policy then refuses.
     */
    Optional<String> realPath(String cleanedAbsolutePath);
}
