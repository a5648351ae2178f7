package io.rediacc.gpu.agent.toolkit;

import io.rediacc.gpu.agent.host.AtomicFiles;
import io.rediacc.gpu.agent.host.CommandResult;
import io.rediacc.gpu.agent.host.HostCommands;
import io.rediacc.gpu.agent.host.HostRoot;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Optional;

/**
 * NVIDIA's package repository for the Container Toolkit, added the way the toolkit's install guide
 * does it: apt — the {@code libnvidia-container} key dearmored into
 * {@code /usr/share/keyrings/nvidia-container-toolkit-keyring.gpg} and the
 * {@code stable/deb/nvidia-container-toolkit.list} source with {@code signed-by} that keyring;
 * dnf/yum — the {@code stable/rpm/nvidia-container-toolkit.repo} file in {@code /etc/yum.repos.d/}.
 * Downloads go through {@code curl} and the key through {@code gpg}, found on the search path
 * (stand-ins under a fixture root).
 */
final class NvidiaRepository {

    static final String BASE = "https://nvidia.github.io/libnvidia-container";
    static final String KEYRING = "/usr/share/keyrings/nvidia-container-toolkit-keyring.gpg";
    static final String APT_LIST = "/etc/apt/sources.list.d/nvidia-container-toolkit.list";
    static final String YUM_REPO = "/etc/yum.repos.d/nvidia-container-toolkit.repo";

    private final HostRoot host;
    private final HostCommands commands;
    private final Duration timeout;

    NvidiaRepository(HostRoot host, HostCommands commands, Duration timeout) {
        this.host = host;
        this.commands = commands;
        this.timeout = timeout;
    }

    /** True when the repository is already configured for {@code pm}. */
    boolean present(PackageManager pm) {
        return switch (pm) {
            case APT -> host.exists(APT_LIST);
            case DNF, YUM -> host.exists(YUM_REPO);
            case ZYPPER -> false;
        };
    }

    /** Adds the repository; empty when done, else why not. */
    Optional<String> add(PackageManager pm) throws IOException {
        if (pm == PackageManager.ZYPPER) {
            return Optional.of("adding NVIDIA's repository is automated for apt and dnf only; add it with zypper as the"
                    + " NVIDIA Container Toolkit install guide shows");
        }
        if (!commands.has("curl")) {
            return Optional.of("no curl on the search path to fetch NVIDIA's repository definition");
        }
        if (pm == PackageManager.APT) {
            if (!commands.has("gpg")) {
                return Optional.of("no gpg on the search path to dearmor NVIDIA's signing key (apt-get install -y gnupg)");
            }
            Path armored = host.path(KEYRING + ".asc.tmp");
            Files.createDirectories(armored.getParent());
            try {
                Optional<String> key = fetch(BASE + "/gpgkey");
                if (key.isEmpty()) {
                    return Optional.of("cannot download " + BASE + "/gpgkey");
                }
                Files.writeString(armored, key.get());
                CommandResult r = commands.run(timeout, "gpg", "--batch", "--yes", "--dearmor", "-o",
                        host.path(KEYRING).toString(), armored.toString()).orElseThrow();
                if (!r.ok()) {
                    return Optional.of("gpg --dearmor of NVIDIA's key failed (" + host.toHostPaths(r.failureSummary()) + ")");
                }
            } finally {
                Files.deleteIfExists(armored);
            }
            Optional<String> list = fetch(BASE + "/stable/deb/nvidia-container-toolkit.list");
            if (list.isEmpty()) {
                return Optional.of("cannot download " + BASE + "/stable/deb/nvidia-container-toolkit.list");
            }
            String signed = list.get().replace("deb https://", "deb [signed-by=" + KEYRING + "] https://");
            AtomicFiles.write(host.path(APT_LIST), signed.getBytes(StandardCharsets.UTF_8));
            return Optional.empty();
        }
        Optional<String> repo = fetch(BASE + "/stable/rpm/nvidia-container-toolkit.repo");
        if (repo.isEmpty()) {
            return Optional.of("cannot download " + BASE + "/stable/rpm/nvidia-container-toolkit.repo");
        }
        AtomicFiles.write(host.path(YUM_REPO), repo.get().getBytes(StandardCharsets.UTF_8));
        return Optional.empty();
    }

    private Optional<String> fetch(String url) {
        return commands.run(timeout, "curl", "-fsSL", url).filter(CommandResult::ok).map(CommandResult::stdout)
                .filter(s -> !s.isBlank());
    }
}
