package io.rediacc.gpu.agent.machine;

import io.rediacc.gpu.agent.host.HostRoot;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

/** The bytes of every file setup owns ({@code /etc/cdi/*}, the inventory, the refresh drop-in), to put back when setup is refused. */
final class OwnedFiles {

    private final Map<Path, byte[]> files = new LinkedHashMap<>();
    private final Path cdiDir;
    private final List<Path> owned;

    private OwnedFiles(HostRoot host) {
        this.cdiDir = host.path(HostRoot.CDI_DIR);
        this.owned = List.of(host.path(HostRoot.INVENTORY), host.path(HostRoot.CDI_REFRESH_DROP_IN));
    }

    static OwnedFiles capture(HostRoot host) throws IOException {
        OwnedFiles f = new OwnedFiles(host);
        if (Files.isDirectory(f.cdiDir)) {
            try (Stream<Path> s = Files.list(f.cdiDir)) {
                for (Path p : s.filter(Files::isRegularFile).sorted().toList()) {
                    f.files.put(p, Files.readAllBytes(p));
                }
            }
        }
        for (Path p : f.owned) {
            if (Files.isRegularFile(p)) {
                f.files.put(p, Files.readAllBytes(p));
            }
        }
        return f;
    }

    /** Puts every captured file back and removes what setup added. */
    void restore() throws IOException {
        if (Files.isDirectory(cdiDir)) {
            try (Stream<Path> s = Files.list(cdiDir)) {
                for (Path p : s.filter(Files::isRegularFile).toList()) {
                    if (!files.containsKey(p)) {
                        Files.delete(p);
                    }
                }
            }
        }
        for (Path p : owned) {
            if (!files.containsKey(p)) {
                Files.deleteIfExists(p);
            }
        }
        for (Map.Entry<Path, byte[]> e : files.entrySet()) {
            Files.createDirectories(e.getKey().getParent());
            Path tmp = e.getKey().resolveSibling("." + e.getKey().getFileName() + ".restore");
            Files.write(tmp, e.getValue());
            Files.move(tmp, e.getKey(), StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        }
    }
}
