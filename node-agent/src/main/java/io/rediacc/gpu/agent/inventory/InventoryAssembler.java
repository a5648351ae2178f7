package io.rediacc.gpu.agent.inventory;

import io.rediacc.gpu.agent.cdi.SpecReadBack;
import io.rediacc.gpu.agent.config.AgentSettings;
import io.rediacc.gpu.agent.detect.GpuDetection;
import io.rediacc.gpu.agent.detect.GpuDetector;
import io.rediacc.gpu.agent.host.HostRoot;
import io.rediacc.gpu.agent.toolkit.NvidiaToolkit;
import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.events.MachineInventory.ToolkitState;
import io.rediacc.gpu.contracts.events.RepoInfo;
import org.jboss.logging.Logger;

import java.time.Clock;
import java.util.List;
import java.util.Optional;

/**
 * Puts a {@link MachineInventory} together. Setup builds it from what it just detected; the
 * long-running mode from setup's {@code inventory.json} plus what changes without setup — the
 * spec directory (read back again), the repos manifest, the persistenced socket — stamped with the
 * time it was assembled (the heartbeat), and carrying setup's file unchanged with setup's time
 * ({@code setupFile}), from which the inventory's age is measured.
 */
public final class InventoryAssembler {

    private static final Logger LOG = Logger.getLogger(InventoryAssembler.class);

    private final String agentVersion;
    private final Clock clock;
    private volatile ManifestRepos lastValidManifest;

    public InventoryAssembler(String agentVersion, Clock clock) {
        this.agentVersion = agentVersion;
        this.clock = clock;
    }

    public MachineInventory assemble(String machine, GpuDetection detection, ToolkitState toolkit,
                                     SpecReadBack.Result specs, List<RepoInfo> repos) {
        return new MachineInventory(MachineInventory.SCHEMA_VERSION, machine, detection.platform(), agentVersion,
                clock.instant(), detection.gpus(), specs.devices(), toolkit, detection.persistencedSocket(), repos,
                specs.problems());
    }

    /**
     * The manifest as the gate enforces it: a manifest that became invalid leaves the last valid one in
     * force, as the gate does on reload, so that a typo neither renames the machine nor empties its repos.
     */
    ManifestRepos manifestInForce(ManifestRepos read) {
        read.warnings().forEach(LOG::warn);
        if (read.valid()) {
            lastValidManifest = read;
            return read;
        }
        ManifestRepos previous = lastValidManifest;
        if (previous != null) {
            LOG.warn("publishing the repos of the manifest as last read valid, as the gate keeps it in force");
            return previous;
        }
        return read;
    }

    /** The machine as it is now, for publication. Never fails: what cannot be read is left out and logged. */
    public MachineInventory current(AgentSettings settings) {
        HostRoot host = settings.host();
        ManifestRepos manifest = manifestInForce(ManifestRepos.read(settings.reposManifest()));
        String machine = MachineName.resolve(settings.machine(), manifest.machine(), host);
        StringBuilder problem = new StringBuilder();
        Optional<java.util.Map.Entry<byte[], MachineInventory>> file = InventoryFile.readWithBytes(host, problem);
        Optional<MachineInventory> recorded = file.map(java.util.Map.Entry::getValue);
        if (problem.length() > 0) {
            LOG.warn(problem);
        }
        String socket = host.exists(HostRoot.PERSISTENCED_SOCKET) ? HostRoot.PERSISTENCED_SOCKET : null;
        if (recorded.isPresent()) {
            MachineInventory r = recorded.get();
            SpecReadBack.Result specs = SpecReadBack.read(host, r.gpus());
            return new MachineInventory(MachineInventory.SCHEMA_VERSION, machine, r.platform(), agentVersion,
                    clock.instant(), r.gpus(), specs.devices(), r.toolkit(), socket, manifest.repos(), specs.problems(),
                    // setup's file itself travels along: "the inventory as stored on the machine", and setup's time
                    InventoryFile.setupFile(file.get().getKey(), r));
        }
        // Setup has not run (or its file is unreadable): still tell the fleet what this machine has.
        GpuDetection detection = GpuDetector.detect(host, settings.commands(), settings.commandTimeout());
        SpecReadBack.Result specs = SpecReadBack.read(host, detection.gpus());
        boolean ctk = settings.commands().has("nvidia-ctk");
        ToolkitState toolkit = new ToolkitState(ctk ? NvidiaToolkit.INSTALLED : NvidiaToolkit.NOT_INSTALLED, null, null,
                HostRoot.INVENTORY + " is missing or unreadable: run node-agent setup");
        return new MachineInventory(MachineInventory.SCHEMA_VERSION, machine, detection.platform(), agentVersion,
                clock.instant(), detection.gpus(), specs.devices(), toolkit, socket, manifest.repos(), specs.problems());
    }
}
