package io.rediacc.gpu.dockerd;

import java.io.IOException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Comparator;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

/**
 * The image the seed's story runs, {@code ubuntu:24.04} by name (no registry is reachable, so it is
 * imported): busybox from Debian's {@code busybox-static}, a {@code bash} that is busybox's sh, and
 * an {@code nvidia-smi} stand-in that lists exactly the {@code /dev/nvidia<N>} nodes the container
 * was given — so what CDI injected shows in the container, with the machine's names and UUIDs.
 */
public final class BaseImage {

    public static final String TAG = "ubuntu:24.04";

    private BaseImage() {
    }

    /** Imports the image into {@code daemon} as {@link #TAG} (again on every call: it is small and the cards may change). */
    public static void importInto(Dockerd daemon, List<GpuCard> cards) throws IOException {
        Path work = Files.createTempDirectory(daemon.dir(), "image");
        try {
            byte[] tar = tar(daemon.kit(), cards, work);
            String changes = "&changes=" + enc("CMD [\"/bin/sh\"]")
                    + "&changes=" + enc("ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin");
            int colon = TAG.indexOf(':');
            UnixHttp.Response r = UnixHttp.call(daemon.socket(), "POST", "/images/create?fromSrc=-&repo=" + enc(TAG.substring(0, colon))
                    + "&tag=" + enc(TAG.substring(colon + 1)) + changes, "application/x-tar", tar);
            if (r.status() != 200 || r.body().contains("\"error")) {
                throw new IOException("importing " + TAG + " into " + daemon.socket() + " failed: HTTP " + r.status() + " " + r.body());
            }
        } finally {
            deleteTree(work);
        }
    }

    static byte[] tar(DockerdKit kit, List<GpuCard> cards, Path work) throws IOException {
        Path fs = Files.createDirectories(work.resolve("rootfs"));
        for (String d : List.of("bin", "usr/bin", "etc", "tmp", "root", "dev", "proc", "sys", "var/tmp")) {
            Files.createDirectories(fs.resolve(d));
        }
        Files.setPosixFilePermissions(fs.resolve("tmp"), PosixFilePermissions.fromString("rwxrwxrwx"));
        Files.copy(kit.busybox(), fs.resolve("bin/busybox"));
        for (String applet : run(List.of(kit.busybox().toString(), "--list")).split("\\s+")) {
            if (!applet.isBlank() && !applet.equals("busybox") && !Files.exists(fs.resolve("bin").resolve(applet))) {
                Files.createSymbolicLink(fs.resolve("bin").resolve(applet), Path.of("busybox"));
            }
        }
        script(fs.resolve("bin/bash"), "#!/bin/sh\n# busybox's sh under bash's name: docker exec -it c bash works\nexec /bin/sh \"$@\"\n");
        script(fs.resolve("usr/bin/nvidia-smi"), nvidiaSmi(cards));
        Files.writeString(fs.resolve("etc/passwd"), "root:x:0:0:root:/root:/bin/sh\nnobody:x:65534:65534:nobody:/nonexistent:/bin/false\n");
        // Ubuntu 24.04's system groups, by its numbers: --group-add video (a GPU's usual group) resolves as there
        Files.writeString(fs.resolve("etc/group"), "root:x:0:\nadm:x:4:\ntty:x:5:\ndisk:x:6:\naudio:x:29:\nvideo:x:44:\n"
                + "plugdev:x:46:\nstaff:x:50:\nusers:x:100:\nnogroup:x:65534:\n");
        Files.writeString(fs.resolve("etc/os-release"), "PRETTY_NAME=\"busybox test image (tagged ubuntu:24.04)\"\nID=busybox\n");
        Path tar = work.resolve("image.tar");
        run(List.of("tar", "--numeric-owner", "--owner=0", "--group=0", "-C", fs.toString(), "-cf", tar.toString(), "."));
        return Files.readAllBytes(tar);
    }

    /**
     * {@code nvidia-smi -L} as the real one prints it, for the cards whose nodes are in this
     * container's {@code /dev} (numbered from 0 in minor order, as the real one numbers visible
     * cards); without {@code /dev/nvidiactl} it fails as the real one does without its driver.
     */
    static String nvidiaSmi(List<GpuCard> cards) {
        StringBuilder cases = new StringBuilder();
        for (GpuCard c : cards) {
            cases.append("    ").append(c.minor()).append(") line=").append(quote(c.name() + " (UUID: " + c.uuid() + ")")).append(" ;;\n");
        }
        return """
                #!/bin/sh
                # stand-in nvidia-smi (rediacc test image): lists the /dev/nvidia<N> nodes CDI gave this container,
                # with the simulated machine's names and UUIDs; only -L (the listing) is supported
                case "$1" in
                  ""|-L|--list-gpus) ;;
                  *) echo "stand-in nvidia-smi: only -L is supported" >&2; exit 2 ;;
                esac
                if [ ! -c /dev/nvidiactl ]; then
                  echo "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver. Make sure that the latest NVIDIA driver is installed and running."
                  exit 9
                fi
                i=0
                for n in $(ls /dev | sed -n 's/^nvidia\\([0-9][0-9]*\\)$/\\1/p' | sort -n); do
                  [ -c "/dev/nvidia$n" ] || continue
                  case "$n" in
                %s    *) line="NVIDIA GPU (UUID: GPU-unknown-minor-$n)" ;;
                  esac
                  echo "GPU $i: $line"
                  i=$((i + 1))
                done
                if [ "$i" = 0 ]; then echo "No devices were found"; exit 6; fi
                """.formatted(cases);
    }

    private static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }

    private static String enc(String s) {
        return URLEncoder.encode(s, StandardCharsets.UTF_8);
    }

    private static void script(Path file, String text) throws IOException {
        Files.writeString(file, text);
        Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-xr-x"));
    }

    private static String run(List<String> command) throws IOException {
        Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
                throw new IOException(String.join(" ", command) + " failed: " + out);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
        return out;
    }

    static void deleteTree(Path dir) throws IOException {
        if (!Files.exists(dir)) {
            return;
        }
        try (Stream<Path> s = Files.walk(dir)) {
            for (Path p : s.sorted(Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
    }
}
