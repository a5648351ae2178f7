package io.rediacc.gpu.cli.machine;

import com.fasterxml.jackson.databind.JsonNode;
import io.rediacc.gpu.cli.ExitCodes;
import io.rediacc.gpu.cli.Failure;
import io.rediacc.gpu.cli.Session;
import io.rediacc.gpu.cli.client.Reply;
import io.rediacc.gpu.cli.config.ConfigFile;
import io.rediacc.gpu.cli.repo.CommandInput;
import io.rediacc.gpu.cli.ssh.MachinePackage;
import io.rediacc.gpu.cli.ssh.Ssh;
import io.rediacc.gpu.cli.ssh.SshTarget;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.stream.Stream;

/**
 * {@code rdc machine setup <machine>}: from the operator's seat, over SSH, a machine from bare to
 * enforced. Installs the machine package, runs {@code node-agent prepare} there (setup, repo
 * daemons, persistenced socket, services; each step changed/unchanged), then waits until
 * inventory-service has the new inventory and every gate of the machine is synced, and prints the
 * machine's GPUs. A plain picocli command: nothing injected.
 */
@Command(name = "setup", mixinStandardHelpOptions = true,
        description = {"Prepare a machine over SSH: install node-agent and docker-gate, detect GPUs and write CDI specs "
                + "(installing the NVIDIA Container Toolkit when asked), configure every repo daemon of its repos manifest "
                + "(CDI on, cdi-spec-dirs [/etc/cdi], runc as default runtime), start node-agent and docker-gate, wait until "
                + "the fleet sees the machine, and print its GPUs.",
                "Each step prints changed or unchanged; a second run changes nothing. Host keys are checked against "
                        + "known_hosts; an unknown key is refused with its fingerprint and the command to accept it."},
        footerHeading = "%nExamples:%n",
        footer = {"  rdc machine setup gpu-host-1                      # address from machines: in the config file",
                "  rdc machine setup gpu-host-1 --host root@10.0.0.5:22 --identity ~/.ssh/id_ed25519",
                "  rdc machine setup wsl-gpu --install-nvidia-toolkit false",
                "",
                "Exit codes: 0 done, 1 unreachable (SSH or a service), 2 usage, 5 the fleet does not see the machine",
                "ready in time, 6 SSH refused (unknown or changed host key, login refused), 7 a step failed on the machine."})
public class MachineSetupCommand implements Callable<Integer> {

    @Spec
    CommandSpec spec;

    @Parameters(index = "0", paramLabel = "<machine>", description = "Machine name, as its node-agent reports it")
    String machine;

    @Option(names = "--install-nvidia-toolkit", paramLabel = "auto|true|false", defaultValue = "auto",
            description = "auto (default): when an NVIDIA GPU is present; true: always; false: never, and no NVIDIA spec")
    String installNvidiaToolkit;

    @Option(names = "--host", paramLabel = "user@addr[:port]", description = "SSH address (default: machines.<machine>.host in the config file)")
    String host;

    @Option(names = "--identity", paramLabel = "<file>", description = "SSH private key (default: machines.<machine>.identity, else ssh's own)")
    Path identity;

    @Option(names = "--known-hosts", paramLabel = "<file>",
            description = "known_hosts file for the host key (default: machines.<machine>.knownHosts, else ssh's own)")
    Path knownHosts;

    @Option(names = "--package", paramLabel = "<dir>", description = "The repository the machine package was built in (default: the one rdc was built in)")
    Path packageDir;

    @Option(names = "--rekey", description = "Register the machine's key even when another key is registered for it"
            + " (a reinstalled machine); audited. Without it a different key is refused.")
    boolean rekey;

    @Option(names = "--wait", paramLabel = "<duration>", defaultValue = "3m",
            description = "How long to wait for the fleet to see the machine ready: 0 (do not wait), 30s, 3m (default)")
    String wait;

    @Override
    public Integer call() throws IOException {
        Session session = Session.of(spec);
        PrintWriter out = session.out();
        String name = MachineNames.valid(machine);
        if (!List.of("auto", "true", "false").contains(installNvidiaToolkit)) {
            throw Failure.usage("--install-nvidia-toolkit must be auto, true or false, not \"" + installNvidiaToolkit + "\"");
        }
        Duration waitFor = CommandInput.wait(wait);
        ConfigFile.MachineEntry entry = session.configFile().machines().get(name);
        String address = host != null ? host : entry == null ? null : entry.host();
        if (address == null) {
            throw Failure.usage("no SSH address for machine " + name + ": pass --host user@addr[:port], or add it to "
                    + session.configPath() + " as machines: {" + name + ": {host: root@addr}}");
        }
        Path id = identity != null ? identity : entry == null || entry.identity() == null ? null : Path.of(entry.identity());
        Path known = knownHosts != null ? knownHosts : entry == null || entry.knownHosts() == null ? null : Path.of(entry.knownHosts());
        String root = entry == null || entry.root() == null ? "/" : entry.root();
        String searchPath = entry == null ? null : entry.path();
        Ssh ssh = new Ssh(SshTarget.parse(address, id, known));

        out.println("setup of " + name + " over SSH (" + ssh.target() + ")");
        out.flush();
        ssh.run("true", l -> { });
        progress(out, "ssh: connected, host key verified");

        MachinePackage pkg = MachinePackage.fromBuild(MachinePackage.locateBuild(packageDir));
        installPackage(ssh, pkg, root, out);

        String prefix = root.equals("/") ? "" : root;
        // before prepare starts the services: their first records must already count, their grants be verifiable
        registerKey(session, ssh, name, root, rekey, out);
        installGrantsKey(session, ssh, root, out);
        StringBuilder cmd = new StringBuilder();
        if (searchPath != null) {
            cmd.append("AGENT_PATH=").append(Ssh.quote(searchPath)).append(' ');
        }
        cmd.append("NODE_AGENT_JAVA_OPTS='-XX:TieredStopAtLevel=1 -XX:+UseSerialGC' ")
                .append(Ssh.quote(prefix + MachinePackage.BIN + "/node-agent")).append(" prepare --root ")
                .append(Ssh.quote(root)).append(" --install-nvidia-toolkit ").append(installNvidiaToolkit);
        Instant[] generatedAt = {null};
        String[] reported = {null};
        int[] repos = {0};
        Ssh.Result prepared = ssh.run(cmd.toString(), line -> {
            if (line.startsWith("@inventory-generated-at ")) {
                generatedAt[0] = Instant.parse(line.substring(line.indexOf(' ') + 1).strip());
            } else if (line.startsWith("@machine ")) {
                reported[0] = line.substring(line.indexOf(' ') + 1).strip();
            } else if (line.startsWith("@repos ")) {
                repos[0] = Integer.parseInt(line.substring(line.indexOf(' ') + 1).strip());
            } else {
                progress(out, line);
            }
        });
        if (prepared.exitCode() == 1) {
            throw new Failure(ExitCodes.MACHINE_FAILED, "setup of " + name + " is not complete: a step on the machine failed"
                    + " or refused (see its line above); fix that and run rdc machine setup " + name + " again");
        }
        if (!prepared.ok()) {
            throw new Failure(ExitCodes.MACHINE_FAILED, "node-agent prepare failed on " + name + " (exit " + prepared.exitCode()
                    + "): " + lastLines(prepared.stderr()));
        }
        if (reported[0] != null && !reported[0].equals(name)) {
            throw new Failure(ExitCodes.MACHINE_FAILED, "the machine at " + ssh.target() + " reports itself as " + reported[0]
                    + ", not " + name + " (machine: in its repos manifest, else its host name); run rdc machine setup "
                    + reported[0] + ", or fix the name there");
        }
        if (waitFor.isZero()) {
            progress(out, "fleet: not waiting (--wait 0); rdc machine gpu list " + name + " shows it once published");
            return ExitCodes.OK;
        }
        awaitFleet(session, name, generatedAt[0], repos[0] > 0, waitFor);
        out.println();
        MachineGpuListCommand.show(session, name);
        return ExitCodes.OK;
    }

    private static void progress(PrintWriter out, String line) {
        out.println("  " + line);
        out.flush();
    }

    private static void installPackage(Ssh ssh, MachinePackage pkg, String root, PrintWriter out) throws IOException {
        String prefix = root.equals("/") ? "" : root;
        StringBuilder installed = new StringBuilder();
        ssh.run("cat " + Ssh.quote(prefix + MachinePackage.DIGEST_FILE) + " 2>/dev/null; true", installed::append);
        if (installed.toString().strip().equals(pkg.digest())) {
            progress(out, "package: unchanged - node-agent, docker-gate and their units are current (" + pkg.digest().substring(0, 12) + ")");
            return;
        }
        StringBuilder java = new StringBuilder();
        ssh.run("command -v java || true", java::append);
        if (java.toString().isBlank()) {
            throw new Failure(ExitCodes.MACHINE_FAILED, "package: failed - no java on the machine's PATH; install Java 17 or"
                    + " newer there (apt-get install -y openjdk-17-jre-headless, dnf install -y java-17-openjdk-headless)");
        }
        Path staged = pkg.stage();
        try {
            StringBuilder remote = new StringBuilder("set -e; mkdir -p ").append(Ssh.quote(root)).append("; ");
            for (String dir : pkg.replacedDirectories()) {
                remote.append("rm -rf ").append(Ssh.quote(prefix + dir)).append("; ");
            }
            remote.append("mkdir -p ").append(Ssh.quote(prefix + MachinePackage.PREFIX)).append("; ")
                    .append("tar -C ").append(Ssh.quote(root)).append(" --no-same-owner -xf -; ")
                    .append("printf '%s\\n' ").append(pkg.digest()).append(" > ").append(Ssh.quote(prefix + MachinePackage.DIGEST_FILE));
            ProcessBuilder tar = new ProcessBuilder("tar", "-C", staged.toString(), "-chf", "-", "usr", "lib")
                    .redirectError(ProcessBuilder.Redirect.DISCARD);
            ProcessBuilder sshPb = new ProcessBuilder(ssh.command(remote.toString()));
            List<Process> pipeline = ProcessBuilder.startPipeline(List.of(tar, sshPb));
            Ssh.Result r = ssh.finishPipeline(pipeline.get(1));
            if (!r.ok()) {
                throw new Failure(ExitCodes.MACHINE_FAILED, "package: failed - copying the files to " + ssh.target()
                        + " failed: " + lastLines(r.stderr()));
            }
        } finally {
            deleteTree(staged);
        }
        progress(out, "package: changed - installed node-agent, docker-gate (" + MachinePackage.PREFIX + "), their launchers ("
                + MachinePackage.BIN + ") and units (/lib/systemd/system)" + (prefix.isEmpty() ? "" : " under " + root)
                + " (" + pkg.digest().substring(0, 12) + ")");
    }

    /**
     * The machine's key: {@code node-agent key} there makes it when missing and prints its public half,
     * which is registered with grant-service (the operator's word is the trust: only records signed by this
     * key speak for the machine). Changed when newly registered, unchanged when already registered.
     */
    private static void registerKey(Session session, Ssh ssh, String name, String root, boolean rekey, PrintWriter out)
            throws IOException {
        String prefix = root.equals("/") ? "" : root;
        String[] key = {null};
        Ssh.Result made = ssh.run("NODE_AGENT_JAVA_OPTS='-XX:TieredStopAtLevel=1 -XX:+UseSerialGC' "
                + Ssh.quote(prefix + MachinePackage.BIN + "/node-agent") + " key --root " + Ssh.quote(root), line -> {
            if (line.startsWith("@public-key ")) {
                key[0] = line.substring(line.indexOf(' ') + 1).strip();
            } else {
                progress(out, line);
            }
        });
        if (!made.ok() || key[0] == null) {
            throw new Failure(ExitCodes.MACHINE_FAILED, "machine key: failed - node-agent key on " + name + " (exit "
                    + made.exitCode() + "): " + lastLines(made.stderr()));
        }
        String reason = rekey ? "rdc machine setup --rekey" : "rdc machine setup";
        // both services verify records with their own copy of the registration (docs/ARCHITECTURE.md, "Machine keys")
        JsonNode atGrants = registered(session.grants().registerKey(name, key[0], rekey, reason), name);
        JsonNode atInventory = registered(session.inventory().registerKey(name, key[0], rekey, reason), name);
        String id = atGrants.path("keyId").asText();
        boolean changed = atGrants.path("changed").asBoolean(false) || atInventory.path("changed").asBoolean(false);
        String previous = atGrants.hasNonNull("previousKeyId") ? atGrants.path("previousKeyId").asText()
                : atInventory.hasNonNull("previousKeyId") ? atInventory.path("previousKeyId").asText() : null;
        if (!changed) {
            progress(out, "key registration: unchanged - key " + id + " is " + name + "'s registered key");
        } else if (previous != null) {
            progress(out, "key registration: changed - RE-KEYED " + name + ": key " + id + " replaces " + previous + " (audited)");
        } else {
            progress(out, "key registration: changed - registered key " + id + " for " + name
                    + " with grant-service and inventory-service");
        }
    }

    /** Where docker-gate reads grant-service's public key by default (gate.grants-key). */
    static final String GRANTS_KEY = "/etc/rediacc/gate/grant-service-key.pub";

    /**
     * grant-service's public key onto the machine, where docker-gate verifies every grant snapshot with it
     * (a gate without it does not start). Unchanged when the machine already has this key.
     */
    private static void installGrantsKey(Session session, Ssh ssh, String root, PrintWriter out) throws IOException {
        JsonNode key = session.grants().signingKey().orFail().json();
        String pem = key.path("publicKey").asText();
        if (!pem.startsWith("-----BEGIN PUBLIC KEY-----") || !pem.matches("[A-Za-z0-9+/=\\n -]+")) {
            throw new Failure(ExitCodes.ERROR, "grant-service answered no usable signing key: " + lastLines(pem));
        }
        String file = (root.equals("/") ? "" : root) + GRANTS_KEY;
        StringBuilder there = new StringBuilder();
        ssh.run("cat " + Ssh.quote(file) + " 2>/dev/null; true", l -> there.append(l).append('\n'));
        if (there.toString().strip().equals(pem.strip())) {
            progress(out, "grants key: unchanged - " + GRANTS_KEY + " is grant-service's key " + key.path("keyId").asText());
            return;
        }
        Ssh.Result r = ssh.run("mkdir -p " + Ssh.quote(file.substring(0, file.lastIndexOf('/'))) + " && printf '%s' "
                + Ssh.quote(pem) + " > " + Ssh.quote(file + ".new") + " && chmod 0644 " + Ssh.quote(file + ".new")
                + " && mv " + Ssh.quote(file + ".new") + " " + Ssh.quote(file), l -> { });
        if (!r.ok()) {
            throw new Failure(ExitCodes.MACHINE_FAILED, "grants key: failed - cannot write " + GRANTS_KEY + ": " + lastLines(r.stderr()));
        }
        progress(out, "grants key: changed - wrote " + GRANTS_KEY + " (grant-service's key " + key.path("keyId").asText()
                + "; docker-gate applies only grant snapshots signed by it)");
    }

    private static JsonNode registered(Reply r, String name) {
        if (r.status() == 409) {
            throw new Failure(ExitCodes.MACHINE_FAILED, "key registration: refused by " + r.service() + " - " + r.error().line()
                    + "; run rdc machine setup " + name + " --rekey only if the machine was reinstalled on purpose");
        }
        return r.orFail().json();
    }

    /** Polls inventory-service until it has an inventory at least as new as this setup's and every gate is synced. */
    private static void awaitFleet(Session session, String name, Instant generatedAt, boolean expectGates, Duration waitFor) {
        PrintWriter out = session.out();
        progress(out, "fleet: waiting up to " + waitFor.toSeconds() + " s for inventory-service and the gates of " + name);
        long deadline = System.nanoTime() + waitFor.toNanos();
        String missing = "inventory-service has not answered";
        while (true) {
            try {
                Reply r = session.inventory().machine(name);
                if (r.status() == 404) {
                    missing = "inventory-service has no inventory of " + name + " yet (is node-agent running there?)";
                } else if (!r.ok()) {
                    throw r.failure();
                } else {
                    missing = notReady(r.json(), generatedAt, expectGates);
                    if (missing == null) {
                        progress(out, "fleet: inventory received, every gate synced");
                        return;
                    }
                }
            } catch (Failure f) {
                if (f.exitCode() != ExitCodes.ERROR) {
                    throw f;
                }
                missing = f.getMessage();
            }
            if (System.nanoTime() > deadline) {
                throw new Failure(ExitCodes.NOT_ENFORCED, "the fleet does not see " + name + " ready after " + waitFor.toSeconds()
                        + " s: " + missing + "; check the services on the machine (journalctl -u node-agent -u docker-gate)"
                        + " and run rdc machine setup " + name + " again");
            }
            try {
                Thread.sleep(500);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new Failure(ExitCodes.ERROR, "interrupted");
            }
        }
    }

    /** Null when ready; otherwise what is still missing. */
    static String notReady(JsonNode detail, Instant generatedAt, boolean expectGates) {
        if (generatedAt != null) {
            Instant seen = Instant.parse(detail.path("generatedAt").asText("1970-01-01T00:00:00Z"));
            if (seen.isBefore(generatedAt)) {
                return "inventory-service still has the inventory of " + seen + ", older than this setup's (" + generatedAt + ")";
            }
        }
        JsonNode gates = detail.path("gates");
        if (expectGates && gates.isEmpty()) {
            return "no gate of the machine has reported yet (is docker-gate running there?)";
        }
        List<String> behind = new ArrayList<>();
        for (JsonNode g : gates) {
            boolean synced = "synced".equals(g.path("state").asText()) && g.path("live").asBoolean(false);
            // daemons verified: reported by gates that check each repo daemon (absent in older gates)
            boolean daemonsOk = !g.has("daemonsVerified") || g.path("daemonsVerified").asBoolean(false);
            if (!synced || !daemonsOk) {
                behind.add(g.path("gateId").asText() + " (" + g.path("state").asText() + (g.path("live").asBoolean() ? "" : ", not live")
                        + (daemonsOk ? "" : ", daemons not verified") + ")");
            }
        }
        return behind.isEmpty() ? null : "gate(s) not ready: " + String.join(", ", behind);
    }

    private static String lastLines(String s) {
        List<String> l = s.lines().filter(x -> !x.isBlank()).toList();
        return l.isEmpty() ? "(no message)" : String.join(" / ", l.subList(Math.max(0, l.size() - 3), l.size()));
    }

    private static void deleteTree(Path dir) throws IOException {
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
