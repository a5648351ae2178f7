package io.rediacc.gpu.cli.ssh;

import io.rediacc.gpu.cli.ExitCodes;
import io.rediacc.gpu.cli.Failure;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/**
 * The machine's software, as files at the places the {@code rediacc-gpu-node} .deb puts them:
 * node-agent and docker-gate under {@code /usr/share/rediacc-gpu-node/}, a launcher each in
 * {@code /usr/lib/rediacc-gpu-node/bin/} (where the units' {@code ExecStart} looks), and the units
 * in {@code /lib/systemd/system/}. This copy is the install step until setup uploads the .deb and
 * runs {@code apt-get install} (then this class becomes that upload); the installed content is
 * identified by a digest, so an unchanged package is not sent again.
 */
public final class MachinePackage {

    public static final String PREFIX = "/usr/share/rediacc-gpu-node";
    public static final String BIN = "/usr/lib/rediacc-gpu-node/bin";
    public static final String DIGEST_FILE = PREFIX + "/.package-digest";
    static final String UNIT_DIR = "/lib/systemd/system";

    /** Host path on the machine → local source (a directory or a file). */
    private final Map<String, Path> sources;
    /** Host path on the machine → generated content (launchers). */
    private final Map<String, String> generated;
    private final String digest;

    private MachinePackage(Map<String, Path> sources, Map<String, String> generated) {
        this.sources = sources;
        this.generated = generated;
        this.digest = computeDigest();
    }

    /**
     * The package built in the repository at {@code repoRoot} ({@code mvn -B package}): the two
     * Quarkus applications and {@code deploy/systemd}.
     */
    public static MachinePackage fromBuild(Path repoRoot) {
        Path agent = repoRoot.resolve("node-agent/target/quarkus-app");
        Path gate = repoRoot.resolve("docker-gate/target/quarkus-app");
        Path units = repoRoot.resolve("deploy/systemd");
        for (Path p : List.of(agent.resolve("quarkus-run.jar"), gate.resolve("quarkus-run.jar"), units)) {
            if (!Files.exists(p)) {
                throw new Failure(ExitCodes.USAGE, "the machine package is incomplete: " + p + " is missing; build it"
                        + " (mvn -B -DskipTests package) or name the build with --package <repo-dir>");
            }
        }
        Map<String, Path> sources = new LinkedHashMap<>();
        sources.put(PREFIX + "/node-agent", agent);
        sources.put(PREFIX + "/docker-gate", gate);
        try (Stream<Path> s = Files.list(units)) {
            s.filter(p -> p.getFileName().toString().endsWith(".service")).sorted()
                    .forEach(p -> sources.put(UNIT_DIR + "/" + p.getFileName(), p));
        } catch (IOException e) {
            throw new Failure(ExitCodes.ERROR, "cannot read " + units + ": " + e.getMessage());
        }
        Map<String, String> generated = new LinkedHashMap<>();
        generated.put(BIN + "/node-agent", launcher("node-agent", "NODE_AGENT_JAVA_OPTS"));
        generated.put(BIN + "/docker-gate", launcher("docker-gate", "DOCKER_GATE_JAVA_OPTS"));
        return new MachinePackage(sources, generated);
    }

    /** Where the build is: {@code --package}, else the repository this rdc was built in. */
    public static Path locateBuild(Path option) {
        if (option != null) {
            return option;
        }
        try {
            Path jar = Path.of(MachinePackage.class.getProtectionDomain().getCodeSource().getLocation().toURI());
            // cli/target/cli-<v>-runner.jar, or cli/target/classes in tests
            for (Path p = jar; p != null; p = p.getParent()) {
                if (Files.isDirectory(p.resolve("node-agent")) && Files.isDirectory(p.resolve("deploy/systemd"))) {
                    return p;
                }
            }
        } catch (Exception e) {
            // fall through to the message below
        }
        throw Failure.usage("cannot find the machine package next to rdc; name the repository it was built in with --package <dir>");
    }

    private static String launcher(String app, String optsVariable) {
        return """
                #!/bin/sh
                # %s launcher, installed by rdc machine setup (the rediacc-gpu-node package installs the same file)
                # the file system's root: / on a machine, a simulated machine's root directory in tests
                root=$(cd "$(dirname "$0")/../../../.." && pwd)
                exec java ${%s:-} -jar "${root%%/}/usr/share/rediacc-gpu-node/%s/quarkus-run.jar" "$@"
                """.formatted(app, optsVariable, app);
    }

    public String digest() {
        return digest;
    }

    /**
     * A directory holding the package laid out from {@code /} (links to the sources, generated
     * files written), for {@code tar -h} to send.
     */
    public Path stage() throws IOException {
        Path dir = Files.createTempDirectory("rdc-package");
        for (var e : sources.entrySet()) {
            Path link = dir.resolve(e.getKey().substring(1));
            Files.createDirectories(link.getParent());
            Files.createSymbolicLink(link, e.getValue().toAbsolutePath());
        }
        for (var e : generated.entrySet()) {
            Path f = dir.resolve(e.getKey().substring(1));
            Files.createDirectories(f.getParent());
            Files.writeString(f, e.getValue());
            Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rwxr-xr-x"));
        }
        return dir;
    }

    /** The application directories replaced on install (so no jar of an older version stays behind). */
    public List<String> replacedDirectories() {
        return sources.keySet().stream().filter(k -> k.startsWith(PREFIX + "/")).toList();
    }

    private String computeDigest() {
        try {
            MessageDigest md = MessageDigest.getInstance("SHA-256");
            for (var e : sources.entrySet()) {
                List<Path> files = new ArrayList<>();
                if (Files.isDirectory(e.getValue())) {
                    try (Stream<Path> s = Files.walk(e.getValue())) {
                        s.filter(Files::isRegularFile).sorted().forEach(files::add);
                    }
                } else {
                    files.add(e.getValue());
                }
                for (Path f : files) {
                    md.update((e.getKey() + "/" + e.getValue().relativize(f) + "\0").getBytes(StandardCharsets.UTF_8));
                    try (InputStream in = Files.newInputStream(f)) {
                        byte[] buf = new byte[1 << 16];
                        int n;
                        while ((n = in.read(buf)) > 0) {
                            md.update(buf, 0, n);
                        }
                    }
                }
            }
            for (var e : generated.entrySet()) {
                md.update((e.getKey() + "\0" + e.getValue()).getBytes(StandardCharsets.UTF_8));
            }
            return HexFormat.of().formatHex(md.digest());
        } catch (IOException e) {
            throw new Failure(ExitCodes.ERROR, "cannot read the machine package: " + e.getMessage());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(e);
        }
    }
}
