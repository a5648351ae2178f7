package io.rediacc.gpu.agent.toolkit;

import io.rediacc.gpu.agent.detect.GpuDetection;
import io.rediacc.gpu.agent.host.AtomicFiles;
import io.rediacc.gpu.agent.host.CommandResult;
import io.rediacc.gpu.agent.host.HostCommands;
import io.rediacc.gpu.agent.host.HostRoot;
import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.events.MachineInventory.ToolkitState;

import java.io.IOException;
import java.nio.file.Files;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The NVIDIA Container Toolkit step of setup: install it through the system package manager when
 * the policy asks, regenerate {@code /etc/cdi/nvidia.yaml} with {@code nvidia-ctk cdi generate} on
 * every setup (so the spec follows driver changes), and keep the refresh service pointed at it.
 * No container runtime is configured: repo daemons run runc, and CDI needs nothing else.
 *
 * <p>The agent manages {@code /etc/cdi/nvidia.yaml} only while the policy allows it and an NVIDIA
 * GPU is present. When it stops managing it, it removes the spec (and its refresh drop-in) only if
 * its previous inventory says it generated that spec; a spec an operator placed there is theirs and
 * stays — it is still read back and published, like any spec in {@code /etc/cdi}.
 */
public final class NvidiaToolkit {

    public static final String PACKAGE = "nvidia-container-toolkit";
    public static final String INSTALLED = "installed";
    public static final String NOT_INSTALLED = "not-installed";
    public static final String DISABLED = "disabled";
    public static final String FAILED = "failed";

    private static final Pattern VERSION = Pattern.compile("version\\s+v?(\\d+(?:\\.\\d+)+\\S*)", Pattern.CASE_INSENSITIVE);

    private final HostRoot host;
    private final HostCommands commands;
    private final Duration commandTimeout;
    private final Duration installTimeout;

    public NvidiaToolkit(HostRoot host, HostCommands commands, Duration commandTimeout, Duration installTimeout) {
        this.host = host;
        this.commands = commands;
        this.commandTimeout = commandTimeout;
        this.installTimeout = installTimeout;
    }

    public ToolkitOutcome apply(ToolkitPolicy policy, GpuDetection detection, Optional<MachineInventory> previous)
            throws IOException {
        List<String> actions = new ArrayList<>();
        List<String> details = new ArrayList<>();
        boolean failed = false;

        boolean wantInstalled = policy == ToolkitPolicy.ALWAYS || (policy == ToolkitPolicy.AUTO && detection.hasNvidiaGpu());
        if (wantInstalled && !commands.has("nvidia-ctk")) {
            Optional<String> problem = install(actions);
            if (problem.isPresent()) {
                failed = true;
                details.add(problem.get());
            }
        }
        boolean present = commands.has("nvidia-ctk");
        String version = present ? version().orElse(null) : null;

        boolean manageSpec = policy != ToolkitPolicy.NEVER && detection.hasNvidiaGpu() && present;
        String spec = null;
        if (manageSpec) {
            Optional<String> problem = generateSpec(detection.wsl(), actions);
            if (problem.isPresent()) {
                failed = true;
                details.add(problem.get());
            }
            if (Files.isRegularFile(host.path(HostRoot.NVIDIA_SPEC))) {
                spec = HostRoot.NVIDIA_SPEC;
            }
        } else {
            removeSpecWeGenerated(previous, actions);
            if (policy == ToolkitPolicy.NEVER) {
                details.add("--install-nvidia-toolkit=false: no NVIDIA spec is generated");
            } else if (!detection.hasNvidiaGpu()) {
                details.add("no NVIDIA GPU: no NVIDIA spec is generated");
            }
        }
        refreshUnits(manageSpec, detection.wsl(), version, actions, details);

        String state;
        if (policy == ToolkitPolicy.NEVER) {
            state = DISABLED;
        } else if (failed) {
            state = FAILED;
        } else {
            state = present ? INSTALLED : NOT_INSTALLED;
        }
        String detail = details.isEmpty() ? null : String.join("; ", details);
        return new ToolkitOutcome(new ToolkitState(state, version, spec, detail), actions, failed);
    }

    private Optional<String> install(List<String> actions) throws IOException {
        Optional<PackageManager> pm = PackageManager.detect(commands);
        if (pm.isEmpty()) {
            return Optional.of("cannot install " + PACKAGE + ": no supported package manager (apt-get, dnf, yum, zypper)"
                    + " on the search path; install it by hand and run setup again");
        }
        CommandResult r = commands.run(installTimeout, pm.get().executable(), pm.get().installCommand(PACKAGE)).orElseThrow();
        if (!r.ok() && pm.get() == PackageManager.APT) {
            // a repository added since the last index refresh is only seen after an update
            commands.run(installTimeout, "apt-get", "update");
            r = commands.run(installTimeout, "apt-get", pm.get().installCommand(PACKAGE)).orElseThrow();
        }
        String repoNote = "";
        NvidiaRepository repo = new NvidiaRepository(host, commands, commandTimeout);
        if (!r.ok() && !repo.present(pm.get())) {
            // the package is usually unknown because NVIDIA's repository is not configured: add it as the install guide does
            Optional<String> problem = repo.add(pm.get());
            if (problem.isPresent()) {
                repoNote = "; NVIDIA's package repository could not be added (" + problem.get() + ")";
            } else {
                actions.add("added NVIDIA's package repository (" + (pm.get() == PackageManager.APT ? NvidiaRepository.APT_LIST
                        : NvidiaRepository.YUM_REPO) + ")");
                if (pm.get() == PackageManager.APT) {
                    commands.run(installTimeout, "apt-get", "update");
                }
                r = commands.run(installTimeout, pm.get().executable(), pm.get().installCommand(PACKAGE)).orElseThrow();
                repoNote = " (NVIDIA's package repository was added)";
            }
        }
        if (!r.ok()) {
            return Optional.of("installing " + PACKAGE + " failed (" + r.failureSummary() + ")" + repoNote + "; if the package is"
                    + " unknown, add NVIDIA's package repository (see the NVIDIA Container Toolkit install guide)"
                    + " and run setup again");
        }
        actions.add("installed " + PACKAGE + " with " + pm.get().executable());
        if (!commands.has("nvidia-ctk")) {
            return Optional.of(PACKAGE + " was installed but nvidia-ctk is not on the search path (" + commands.pathVariable() + ")");
        }
        return Optional.empty();
    }

    private Optional<String> version() {
        return commands.run(commandTimeout, "nvidia-ctk", "--version").filter(CommandResult::ok).flatMap(r -> {
            Matcher m = VERSION.matcher(r.stdout());
            return m.find() ? Optional.of(m.group(1)) : Optional.empty();
        });
    }

    private Optional<String> generateSpec(boolean wsl, List<String> actions) throws IOException {
        Files.createDirectories(host.path(HostRoot.CDI_DIR));
        List<String> args = new ArrayList<>(List.of("cdi", "generate", "--output=" + host.path(HostRoot.NVIDIA_SPEC)));
        if (wsl) {
            args.add("--mode=wsl");
        }
        CommandResult r = commands.run(commandTimeout, "nvidia-ctk", args.toArray(String[]::new)).orElseThrow();
        if (!r.ok()) {
            return Optional.of("generating " + HostRoot.NVIDIA_SPEC + " failed (" + host.toHostPaths(r.failureSummary())
                    + "); the previous spec, if any, was left as it was");
        }
        actions.add("generated " + HostRoot.NVIDIA_SPEC + (wsl ? " (--mode=wsl)" : ""));
        return Optional.empty();
    }

    private void removeSpecWeGenerated(Optional<MachineInventory> previous, List<String> actions) throws IOException {
        boolean ours = previous.map(MachineInventory::toolkit).map(ToolkitState::nvidiaSpec)
                .filter(HostRoot.NVIDIA_SPEC::equals).isPresent();
        if (ours && Files.deleteIfExists(host.path(HostRoot.NVIDIA_SPEC))) {
            actions.add("removed " + HostRoot.NVIDIA_SPEC + " (generated by an earlier setup; no longer managed)");
        }
    }

    /**
     * The toolkit's {@code nvidia-cdi-refresh} units (toolkit 1.18.0+; WSL handled from 1.19.1)
     * regenerate the spec on driver changes: pointed at {@code /etc/cdi/nvidia.yaml} by a drop-in,
     * then enabled. An older toolkit is said to be too old: the spec then follows the driver only
     * when setup runs again.
     */
    private void refreshUnits(boolean manageSpec, boolean wsl, String version, List<String> actions, List<String> details)
            throws IOException {
        boolean handlesPlatform = !wsl || atLeast(version, 1, 19, 1);
        if (manageSpec && !handlesPlatform) {
            details.add("nvidia-container-toolkit " + version + " does not refresh the spec on WSL (1.19.1 and newer do):"
                    + " run setup again after a Windows driver update");
        }
        boolean wanted = manageSpec && handlesPlatform;
        refreshDropIn(wanted, actions, details);
        if (!wanted) {
            return;
        }
        if (!unitInstalled(CdiRefreshDropIn.SERVICE) || !unitInstalled(CdiRefreshDropIn.PATH_UNIT)) {
            details.add("nvidia-container-toolkit " + version + " has no nvidia-cdi-refresh units (they come with 1.18.0):"
                    + " the spec follows driver updates only when setup runs again; upgrade the toolkit");
            return;
        }
        boolean enabled = commands.run(commandTimeout, "systemctl", "is-enabled", "--quiet", CdiRefreshDropIn.PATH_UNIT)
                .map(CommandResult::ok).orElse(false);
        if (!enabled) {
            commands.run(commandTimeout, "systemctl", "enable", "--now", CdiRefreshDropIn.PATH_UNIT, CdiRefreshDropIn.SERVICE)
                    .ifPresent(r -> {
                        if (r.ok()) {
                            actions.add("enabled " + CdiRefreshDropIn.PATH_UNIT + " and " + CdiRefreshDropIn.SERVICE);
                        } else {
                            details.add(r.failureSummary());
                        }
                    });
        }
    }

    private boolean unitInstalled(String unit) {
        return List.of("/usr/lib/systemd/system/", "/lib/systemd/system/", "/etc/systemd/system/").stream()
                .anyMatch(dir -> host.exists(dir + unit));
    }

    static boolean atLeast(String version, int... wanted) {
        if (version == null) {
            return false;
        }
        String[] parts = version.split("[.-]");
        for (int i = 0; i < wanted.length; i++) {
            int have;
            try {
                have = i < parts.length ? Integer.parseInt(parts[i].replaceAll("\\D.*", "")) : 0;
            } catch (NumberFormatException e) {
                return false;
            }
            if (have != wanted[i]) {
                return have > wanted[i];
            }
        }
        return true;
    }

    private void refreshDropIn(boolean wanted, List<String> actions, List<String> details) throws IOException {
        var file = host.path(HostRoot.CDI_REFRESH_DROP_IN);
        boolean changed;
        if (wanted) {
            String ctk = commands.find("nvidia-ctk").map(p -> host.hostPath(p)).orElse("/usr/bin/nvidia-ctk");
            changed = AtomicFiles.write(file, CdiRefreshDropIn.content(ctk));
            if (changed) {
                actions.add("wrote " + HostRoot.CDI_REFRESH_DROP_IN);
            }
            CdiRefreshDropIn.conflictingEnvironmentFile(host).ifPresent(other -> details.add(HostRoot.CDI_REFRESH_ENV_FILE
                    + " sets " + CdiRefreshDropIn.OUTPUT_VARIABLE + "=" + other + "; the drop-in's --output wins, so"
                    + " nvidia-cdi-refresh still updates " + HostRoot.NVIDIA_SPEC + "; remove that line to avoid confusion"));
        } else {
            changed = Files.deleteIfExists(file);
            if (changed) {
                actions.add("removed " + HostRoot.CDI_REFRESH_DROP_IN);
            }
        }
        if (changed) {
            commands.run(commandTimeout, "systemctl", "daemon-reload").ifPresent(r -> {
                if (r.ok()) {
                    actions.add("ran systemctl daemon-reload");
                } else {
                    details.add(r.failureSummary());
                }
            });
        }
    }
}
