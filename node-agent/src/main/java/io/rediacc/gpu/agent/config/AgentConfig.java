package io.rediacc.gpu.agent.config;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

import java.time.Duration;
import java.util.Optional;

/** node-agent settings ({@code agent.*}); command-line options override the ones they name. */
@ConfigMapping(prefix = "agent")
public interface AgentConfig {

    /** Root under which every host path (/sys, /dev, /etc/cdi, /etc/rediacc, /run) is read and written; {@code --root}. */
    @WithDefault("/")
    String root();

    /** Search path for nvidia-smi, nvidia-ctk, the package manager and systemctl; default: the process's PATH. */
    Optional<String> path();

    /** The machine's name ({@code --machine}); default: the repos manifest's {@code machine}, then the host name. */
    Optional<String> machine();

    /** The repos manifest, a host path under the root; default {@code /etc/rediacc/gate/repos.yaml}. */
    Optional<String> reposManifest();

    /**
     * docker-gate's state directory ({@code gate.state-dir}), a host path under the root; default
     * {@code /var/lib/rediacc/gate}. Setup reads the gate's verified copy of this machine's grants there
     * ({@code grants-<machine>.json}) to refuse removing granted CDI names when no {@code --guard-grant} is given.
     */
    Optional<String> gateStateDir();

    /**
     * grant-service's public key that the gate's copy is verified with ({@code gate.grants-key}), a host path under
     * the root; default {@code grant-service-key.pub} beside the repos manifest, where docker-gate reads it.
     */
    Optional<String> grantsKey();

    /** Default of {@code setup --install-nvidia-toolkit}: auto, true or false. */
    @WithDefault("auto")
    String installNvidiaToolkit();

    /** How often the long-running mode re-publishes the inventory when nothing changed. */
    @WithDefault("60s")
    Duration heartbeat();

    /** Quiet time after a file change before the inventory is rebuilt (a burst of writes publishes once). */
    @WithDefault("500ms")
    Duration debounce();

    /** Longest wait for nvidia-smi, nvidia-ctk and systemctl. */
    @WithDefault("2m")
    Duration commandTimeout();

    /** Longest wait for the package manager installing the NVIDIA Container Toolkit. */
    @WithDefault("15m")
    Duration installTimeout();

    /** Publishing to Kafka. */
    Publish publish();

    /** Retry pacing while Kafka is unreachable. */
    interface Publish {

        /** First wait after a failed publication; doubles on each further failure. */
        @WithDefault("1s")
        Duration backoffMin();

        /** Longest wait between two attempts. */
        @WithDefault("30s")
        Duration backoffMax();
    }
}
