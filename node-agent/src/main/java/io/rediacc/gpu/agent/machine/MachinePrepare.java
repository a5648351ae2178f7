package io.rediacc.gpu.agent.machine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rediacc.gpu.agent.config.AgentSettings;
import io.rediacc.gpu.agent.host.AtomicFiles;
import io.rediacc.gpu.agent.host.CommandResult;
import io.rediacc.gpu.agent.host.HostRoot;
import io.rediacc.gpu.agent.setup.SetupReport;
import io.rediacc.gpu.agent.setup.SetupService;
import io.rediacc.gpu.agent.toolkit.ToolkitPolicy;
import io.rediacc.gpu.contracts.events.MachineInventory;
import io.rediacc.gpu.contracts.signing.KeyPairFile;
import io.rediacc.gpu.contracts.signing.SigningKeys;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.function.Consumer;
import java.util.stream.Stream;

/**
 * The machine side of {@code rdc machine setup}, after the package is installed: node-agent setup,
 * every repo daemon's {@code daemon.json}, the nvidia-persistenced socket where each daemon looks
 * for it, and the services. Each step reports {@code changed} or {@code unchanged} (a second run
 * reports only {@code unchanged}), or {@code failed}/{@code refused} with what to do.
 */
public final class MachinePrepare {

    /** The units the package installs, enabled and started by the last step. */
    public static final List<String> UNITS = List.of("node-agent-setup.service", "node-agent.service", "docker-gate.service");
    static final String PERSISTENCED_DIR = "/run/nvidia-persistenced";

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    private final SetupService setup;

    public MachinePrepare(SetupService setup) {
        this.setup = setup;
    }

    /** What the run left: the inventory setup wrote (null when setup could not write it) and whether any step went wrong. */
    public record Result(MachineInventory inventory, boolean anyBad) {
    }

    public Result run(AgentSettings settings, ToolkitPolicy policy, Consumer<Step> progress) throws IOException {
        return run(settings, policy, GrantGuard.NONE, progress, line -> { });
    }

    public Result run(AgentSettings settings, ToolkitPolicy policy, GrantGuard guard, Consumer<Step> progress,
                      Consumer<String> notice) throws IOException {
        return run(settings, policy, false, guard, progress, notice);
    }

    /**
     * @param chosen whether {@code policy} is saved for the boot-time setup ({@link SavedToolkitChoice}), once setup
     *               went ahead with it (prepare always: the operator's option, else the choice saved before)
     * @param guard  the names that hold grants, and whether setup may remove them anyway
     * @param notice {@code @}-lines for rdc: {@code @would-orphan <name>} (refused) or {@code @orphaned <name>} (forced)
     */
    public Result run(AgentSettings settings, ToolkitPolicy policy, boolean chosen, GrantGuard guard,
                      Consumer<Step> progress, Consumer<String> notice) throws IOException {
        boolean[] bad = {false};
        Consumer<Step> report = s -> {
            bad[0] |= s.outcome().bad();
            progress.accept(s);
        };
        HostRoot host = settings.host();
        Map<String, String> before = snapshot(host);
        GuardedSetup.Outcome outcome = GuardedSetup.run(setup, settings, policy, guard);
        if (outcome instanceof GuardedSetup.Refused refused) {
            refused.lost().forEach(name -> notice.accept("@would-orphan " + name));
            report.accept(Step.refused("node-agent setup", refused.why()));
            return new Result(refused.kept(), true);
        }
        GuardedSetup.Done done = (GuardedSetup.Done) outcome;
        SetupReport r = done.report();
        MachineInventory inv = r.inventory();
        List<String> lost = done.orphaned();
        String summary = inv.gpus().size() + " GPU(s), " + inv.cdiDevices().size() + " CDI device(s), NVIDIA toolkit "
                + inv.toolkit().state() + (inv.toolkit().detail() == null ? "" : " (" + inv.toolkit().detail() + ")");
        if (!lost.isEmpty()) {
            lost.forEach(name -> notice.accept("@orphaned " + name));
            report.accept(Step.changed("grants", "orphaned the grants of " + String.join(", ", lost) + " (--force): the "
                    + "machine no longer defines them; the gate refuses them until they return or are revoked"));
        }
        if (r.failed()) {
            report.accept(Step.failed("node-agent setup", summary));
        } else {
            Map<String, String> after = snapshot(host);
            List<String> diff = diff(before, after);
            report.accept(diff.isEmpty() ? Step.unchanged("node-agent setup", summary)
                    : Step.changed("node-agent setup", summary + "; " + String.join(", ", diff)));
        }
        if (chosen) {
            report.accept(SavedToolkitChoice.save(host, policy));
        }
        report.accept(machineKey(host));
        RepoDaemon.Listing daemons = RepoDaemon.read(settings.reposManifest());
        daemons.problems().forEach(p -> report.accept(Step.failed("repo daemons", p)));
        if (daemons.daemons().isEmpty() && daemons.problems().isEmpty()) {
            report.accept(Step.unchanged("repo daemons", "the repos manifest names no daemonConfig"));
        }
        for (RepoDaemon d : daemons.daemons()) {
            report.accept(daemon(settings, d));
        }
        report.accept(persistenced(settings, daemons.daemons()));
        report.accept(services(settings));
        return new Result(inv, bad[0]);
    }

    // ---- node-agent setup: changed when the files it owns changed (inventory minus its timestamp, /etc/cdi, drop-in)

    static Map<String, String> snapshot(HostRoot host) throws IOException {
        Map<String, String> files = new TreeMap<>();
        Path inv = host.path(HostRoot.INVENTORY);
        if (Files.isRegularFile(inv)) {
            try {
                JsonNode doc = JSON.readTree(inv.toFile());
                if (doc instanceof ObjectNode o) {
                    o.remove("generatedAt");
                }
                files.put(HostRoot.INVENTORY, doc.toString());
            } catch (IOException e) {
                files.put(HostRoot.INVENTORY, "unreadable");
            }
        }
        Path cdi = host.path(HostRoot.CDI_DIR);
        if (Files.isDirectory(cdi)) {
            try (Stream<Path> s = Files.list(cdi)) {
                for (Path p : s.filter(Files::isRegularFile).toList()) {
                    files.put(host.hostPath(p), Files.readString(p, StandardCharsets.UTF_8));
                }
            }
        }
        Path dropIn = host.path(HostRoot.CDI_REFRESH_DROP_IN);
        if (Files.isRegularFile(dropIn)) {
            files.put(HostRoot.CDI_REFRESH_DROP_IN, Files.readString(dropIn, StandardCharsets.UTF_8));
        }
        return files;
    }

    private static List<String> diff(Map<String, String> before, Map<String, String> after) {
        List<String> out = new ArrayList<>();
        after.forEach((k, v) -> {
            if (!before.containsKey(k)) {
                out.add("wrote " + k);
            } else if (!before.get(k).equals(v)) {
                out.add("updated " + k);
            }
        });
        before.keySet().stream().filter(k -> !after.containsKey(k)).forEach(k -> out.add("removed " + k));
        return out;
    }

    // ---- the machine's signing key: created once, never replaced (re-keying is an operator's act)

    public static Step machineKey(HostRoot host) {
        try {
            KeyPairFile.Loaded key = KeyPairFile.ensure(host.path(KeyPairFile.MACHINE_KEY));
            String id = SigningKeys.keyId(key.pair().getPublic());
            return key.created()
                    ? Step.changed("machine key", "wrote " + KeyPairFile.MACHINE_KEY + " (Ed25519, key id " + id
                            + ", readable by root and group " + KeyPairFile.GROUP + ") and " + KeyPairFile.MACHINE_PUBLIC_KEY)
                    : Step.unchanged("machine key", KeyPairFile.MACHINE_KEY + " (key id " + id + ")");
        } catch (RuntimeException e) {
            return Step.failed("machine key", host.toHostPaths(String.valueOf(e.getMessage()))
                    + "; node-agent and docker-gate sign every record with it");
        }
    }

    // ---- repo daemons

    private Step daemon(AgentSettings settings, RepoDaemon d) {
        String name = "daemon " + d.repo();
        HostRoot host = settings.host();
        Path file = host.path(d.daemonConfig());
        ObjectNode current;
        try {
            current = Files.exists(file) ? (ObjectNode) JSON.readTree(file.toFile()) : JSON.createObjectNode();
            if (current == null) {
                current = JSON.createObjectNode();
            }
        } catch (IOException | ClassCastException e) {
            return Step.failed(name, d.daemonConfig() + " is not a JSON object; fix it (or move it away) and run setup again");
        }
        if (d.daemon() == null) {
            return Step.failed(name, "the manifest gives no daemon address for " + d.repo() + "; its version cannot be checked");
        }
        DockerVersion version;
        try {
            version = DockerVersion.query(d.daemon(), Duration.ofSeconds(10));
        } catch (IOException e) {
            return Step.failed(name, "cannot ask the daemon at " + d.daemon() + " for its version (" + e.getMessage()
                    + "); start it and run setup again");
        }
        if (version.before(25, 0)) {
            return Step.refused(name, "Docker " + version.text() + " at " + d.daemon() + " is older than 25.0 and cannot use CDI"
                    + " devices; upgrade that daemon to 25.0 or newer (28.2+ recommended) and run setup again");
        }
        // the machine's /etc/cdi as the daemon sees it: <root>/etc/cdi on a simulated machine
        String cdiDir = host.path(HostRoot.CDI_DIR).toString();
        DaemonJson.Merge merge = DaemonJson.merge(current, version, cdiDir);
        if (!merge.changed()) {
            return Step.unchanged(name, d.daemonConfig() + " (Docker " + version.text() + "): CDI on, cdi-spec-dirs [" + cdiDir + "], runc");
        }
        String backup;
        try {
            backup = null;
            if (Files.exists(file)) {
                Path b = file.resolveSibling(file.getFileName() + ".bak-" + Instant.now().getEpochSecond());
                Files.copy(file, b, StandardCopyOption.COPY_ATTRIBUTES, StandardCopyOption.REPLACE_EXISTING);
                backup = host.hostPath(b);
            }
            AtomicFiles.write(file, (JSON.writeValueAsString(merge.document()) + "\n").getBytes(StandardCharsets.UTF_8));
        } catch (IOException e) {
            return Step.failed(name, "cannot write " + d.daemonConfig() + ": " + host.toHostPaths(e.getMessage()));
        }
        String what = d.daemonConfig() + " (Docker " + version.text() + "): " + String.join(", ", merge.changes())
                + (backup == null ? "" : "; backup " + backup);
        if (d.daemonService() == null) {
            return Step.changed(name, what + "; restart that daemon to apply it (the manifest names no daemonService)");
        }
        Optional<CommandResult> restart = settings.commands().run(settings.commandTimeout(), "systemctl", "restart", d.daemonService());
        if (restart.isEmpty() || !restart.get().ok()) {
            return Step.failed(name, what + "; but restarting " + d.daemonService() + " failed ("
                    + restart.map(CommandResult::failureSummary).orElse("no systemctl on the search path") + ")");
        }
        return Step.changed(name, what + "; restarted " + d.daemonService());
    }

    // ---- nvidia-persistenced's socket, where each daemon looks for it

    private Step persistenced(AgentSettings settings, List<RepoDaemon> daemons) {
        HostRoot host = settings.host();
        if (!host.exists(HostRoot.PERSISTENCED_SOCKET)) {
            return Step.unchanged("persistenced socket", "no " + HostRoot.PERSISTENCED_SOCKET + " on this machine (nvidia-persistenced not running)");
        }
        List<String> done = new ArrayList<>();
        List<String> ok = new ArrayList<>();
        for (RepoDaemon d : daemons) {
            if (d.daemonRun() == null) {
                continue;
            }
            String target = d.daemonRun() + "/nvidia-persistenced";
            if (host.exists(target + "/socket")) {
                ok.add(d.repo());
                continue;
            }
            try {
                Files.createDirectories(host.path(target));
            } catch (IOException e) {
                return Step.failed("persistenced socket", "cannot create " + target + ": " + e.getMessage());
            }
            // a bind mount of the directory, not of the socket: persistenced recreates its socket on restart
            Optional<CommandResult> mount = settings.commands().run(settings.commandTimeout(), "mount", "--bind",
                    host.path(PERSISTENCED_DIR).toString(), host.path(target).toString());
            if (mount.isEmpty() || !mount.get().ok()) {
                return Step.failed("persistenced socket", "cannot bind " + PERSISTENCED_DIR + " onto " + target + " ("
                        + mount.map(r -> host.toHostPaths(r.failureSummary())).orElse("no mount on the search path") + ")");
            }
            done.add(d.repo() + " (" + target + ")");
        }
        String shared = "repo daemons sharing the host's /run see " + HostRoot.PERSISTENCED_SOCKET;
        if (done.isEmpty()) {
            return Step.unchanged("persistenced socket", shared + (ok.isEmpty() ? "" : "; already bound for " + String.join(", ", ok)));
        }
        return Step.changed("persistenced socket", "bound " + PERSISTENCED_DIR + " for " + String.join(", ", done) + "; " + shared);
    }

    // ---- node-agent and docker-gate under systemd

    private Step services(AgentSettings settings) {
        var cmd = settings.commands();
        Duration t = settings.commandTimeout();
        if (!cmd.has("systemctl")) {
            return Step.failed("services", "no systemctl on the search path: start " + String.join(", ", UNITS) + " yourself");
        }
        List<String> missing = new ArrayList<>();
        for (String unit : UNITS) {
            boolean enabled = cmd.run(t, "systemctl", "is-enabled", "--quiet", unit).map(CommandResult::ok).orElse(false);
            boolean active = cmd.run(t, "systemctl", "is-active", "--quiet", unit).map(CommandResult::ok).orElse(false);
            if (!enabled || !active) {
                missing.add(unit);
            }
        }
        if (missing.isEmpty()) {
            return Step.unchanged("services", String.join(", ", UNITS) + " enabled and running");
        }
        cmd.run(t, "systemctl", "daemon-reload");
        List<String> args = new ArrayList<>(List.of("enable", "--now"));
        args.addAll(missing);
        Optional<CommandResult> r = cmd.run(t, "systemctl", args.toArray(String[]::new));
        if (r.isEmpty() || !r.get().ok()) {
            return Step.failed("services", "systemctl enable --now " + String.join(" ", missing) + " failed ("
                    + r.map(CommandResult::failureSummary).orElse("?") + "); see journalctl -u <unit>");
        }
        return Step.changed("services", "enabled and started " + String.join(", ", missing));
    }
}
