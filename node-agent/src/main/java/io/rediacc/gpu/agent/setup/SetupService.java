package io.rediacc.gpu.agent.setup;

import io.rediacc.gpu.agent.cdi.OwnSpecs;
import io.rediacc.gpu.agent.cdi.SpecReadBack;
import io.rediacc.gpu.agent.config.AgentSettings;
import io.rediacc.gpu.agent.detect.GpuDetection;
import io.rediacc.gpu.agent.detect.GpuDetector;
import io.rediacc.gpu.agent.host.HostRoot;
import io.rediacc.gpu.agent.inventory.InventoryAssembler;
import io.rediacc.gpu.agent.inventory.InventoryFile;
import io.rediacc.gpu.agent.inventory.MachineName;
import io.rediacc.gpu.agent.inventory.ManifestRepos;
import io.rediacc.gpu.agent.toolkit.NvidiaToolkit;
import io.rediacc.gpu.agent.toolkit.ToolkitOutcome;
import io.rediacc.gpu.agent.toolkit.ToolkitPolicy;
import io.rediacc.gpu.contracts.events.MachineInventory;

import java.io.IOException;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * {@code node-agent setup}, in the order the steps depend on each other: detect; install the
 * NVIDIA toolkit and regenerate NVIDIA's spec (per policy); write the product's own specs; read
 * every spec back; write {@code inventory.json}. Running it again is safe and is how the machine
 * follows driver and hardware changes.
 */
public final class SetupService {

    private final InventoryAssembler assembler;

    public SetupService(InventoryAssembler assembler) {
        this.assembler = assembler;
    }

    public SetupReport run(AgentSettings settings, ToolkitPolicy policy) throws IOException {
        HostRoot host = settings.host();
        List<String> actions = new ArrayList<>();
        List<String> notes = new ArrayList<>();

        ManifestRepos manifest = ManifestRepos.read(settings.reposManifest());
        notes.addAll(manifest.warnings());
        String machine = MachineName.resolve(settings.machine(), manifest.machine(), host);

        GpuDetection detection = GpuDetector.detect(host, settings.commands(), settings.commandTimeout());
        notes.addAll(detection.notes());

        Files.createDirectories(host.path(HostRoot.CDI_DIR));
        Optional<MachineInventory> previous = InventoryFile.read(host, null);
        ToolkitOutcome toolkit = new NvidiaToolkit(host, settings.commands(), settings.commandTimeout(),
                settings.installTimeout()).apply(policy, detection, previous);
        actions.addAll(toolkit.actions());

        OwnSpecs.Outcome own = OwnSpecs.write(host, detection);
        own.written().forEach(p -> actions.add("wrote " + p));
        own.removed().forEach(p -> actions.add("removed " + p + " (its devices are gone)"));

        SpecReadBack.Result specs = SpecReadBack.read(host, detection.gpus());
        MachineInventory inventory = assembler.assemble(machine, detection, toolkit.state(), specs, manifest.repos());
        InventoryFile.write(host, inventory);
        actions.add("wrote " + HostRoot.INVENTORY);
        return new SetupReport(inventory, actions, notes, toolkit.failed());
    }
}
