package io.rediacc.gpu.agent.toolkit;

import io.rediacc.gpu.agent.host.HostCommands;

import java.util.List;
import java.util.Optional;

/** The system package managers setup knows how to install a package with, in the order it looks for them. */
public enum PackageManager {
    APT("apt-get", List.of("install", "-y")),
    DNF("dnf", List.of("install", "-y")),
    YUM("yum", List.of("install", "-y")),
    ZYPPER("zypper", List.of("--non-interactive", "install"));

    private final String executable;
    private final List<String> installArgs;

    PackageManager(String executable, List<String> installArgs) {
        this.executable = executable;
        this.installArgs = installArgs;
    }

    public String executable() {
        return executable;
    }

    /** The arguments that install {@code pkg} without asking. */
    public String[] installCommand(String pkg) {
        String[] args = installArgs.toArray(new String[installArgs.size() + 1]);
        args[installArgs.size()] = pkg;
        return args;
    }

    public static Optional<PackageManager> detect(HostCommands commands) {
        for (PackageManager pm : values()) {
            if (commands.has(pm.executable)) {
                return Optional.of(pm);
            }
        }
        return Optional.empty();
    }
}
