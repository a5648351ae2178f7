package io.rediacc.gpu.agent.config;

import io.rediacc.gpu.agent.host.HostCommands;
import io.rediacc.gpu.agent.host.HostRoot;
import io.rediacc.gpu.contracts.signing.GrantSnapshotCopy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * The settings one run of the agent works with: the configuration with the command line's
 * overrides applied. Tests build it directly for a fixture root.
 *
 * @param reposManifest where the repos manifest lies (already resolved under the root)
 * @param gateStateDir  docker-gate's state directory, where its copies of the machine's grants lie (resolved under the root)
 * @param grantsKey     grant-service's public key those copies are verified with (resolved under the root)
 */
public record AgentSettings(HostRoot host, HostCommands commands, Optional<String> machine, Path reposManifest,
                            Duration commandTimeout, Duration installTimeout, Path gateStateDir, Path grantsKey) {

    /** The file name of grant-service's public key beside the repos manifest: where docker-gate reads it by default. */
    public static final String GRANTS_KEY_FILE = "grant-service-key.pub";

    public static AgentSettings from(AgentConfig config, String rootOverride, String machineOverride) {
        String rootText = rootOverride != null ? rootOverride : config.root();
        Path root = Path.of(rootText);
        if (!Files.isDirectory(root)) {
            throw new IllegalArgumentException("root " + rootText + " is not a directory; pass --root with an existing directory"
                    + " (the machine's / or a fixture root)");
        }
        HostRoot host = new HostRoot(root);
        HostCommands commands = config.path().map(HostCommands::new).orElseGet(HostCommands::fromEnvironment);
        Optional<String> machine = machineOverride != null ? Optional.of(machineOverride) : config.machine();
        Path manifest = host.path(config.reposManifest().orElse(HostRoot.REPOS_MANIFEST));
        return new AgentSettings(host, commands, machine, manifest, config.commandTimeout(), config.installTimeout(),
                host.path(config.gateStateDir().orElse(GrantSnapshotCopy.DEFAULT_STATE_DIR)),
                config.grantsKey().map(host::path).orElse(manifest.resolveSibling(GRANTS_KEY_FILE)));
    }

    /** Settings for a fixture root with stand-in executables on {@code path}. */
    public static AgentSettings forRoot(Path root, String path, String machine) {
        HostRoot host = new HostRoot(root);
        Path manifest = host.path(HostRoot.REPOS_MANIFEST);
        return new AgentSettings(host, new HostCommands(path), Optional.ofNullable(machine), manifest,
                Duration.ofSeconds(30), Duration.ofMinutes(2), host.path(GrantSnapshotCopy.DEFAULT_STATE_DIR),
                manifest.resolveSibling(GRANTS_KEY_FILE));
    }
}
