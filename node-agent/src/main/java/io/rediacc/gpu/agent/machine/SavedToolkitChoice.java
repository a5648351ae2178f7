package io.rediacc.gpu.agent.machine;

import io.rediacc.gpu.agent.host.HostRoot;
import io.rediacc.gpu.agent.toolkit.ToolkitPolicy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The operator's last {@code --install-nvidia-toolkit}, kept as {@code INSTALL_NVIDIA_TOOLKIT} in
 * {@code node-agent.env}, where node-agent-setup.service reads it: without it the boot-time setup would go back to
 * {@code auto} and regenerate the NVIDIA spec the operator had set up without (or remove one set up with
 * {@code true}). {@code renet setup} without the option repeats it too. The file is the operator's (a conffile):
 * only the one line is written, every other line is kept as it was.
 */
public final class SavedToolkitChoice {

    static final String KEY = "INSTALL_NVIDIA_TOOLKIT";

    private SavedToolkitChoice() {
    }

    /** The choice saved on the machine; empty when none is (or the line is not auto, true or false). */
    public static Optional<ToolkitPolicy> read(HostRoot host) {
        Path file = host.path(HostRoot.AGENT_ENV);
        try {
            if (!Files.isRegularFile(file)) {
                return Optional.empty();
            }
            String value = null;
            for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
                if (line.strip().startsWith(KEY + "=")) {
                    value = line.strip().substring(KEY.length() + 1).strip(); // the last one wins, as for systemd
                }
            }
            return value == null ? Optional.empty() : Optional.of(ToolkitPolicy.parse(value));
        } catch (IOException | IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    /** Saves {@code choice}; the step line says whether the file changed. */
    public static Step save(HostRoot host, ToolkitPolicy choice) {
        Path file = host.path(HostRoot.AGENT_ENV);
        String wanted = KEY + "=" + choice.flag();
        String what = wanted + " in " + HostRoot.AGENT_ENV + ": node-agent-setup.service repeats it at boot";
        try {
            List<String> lines = Files.isRegularFile(file) ? new ArrayList<>(Files.readAllLines(file, StandardCharsets.UTF_8))
                    : new ArrayList<>();
            int last = -1;
            for (int i = 0; i < lines.size(); i++) {
                if (lines.get(i).strip().startsWith(KEY + "=")) {
                    last = i;
                }
            }
            if (last >= 0 && lines.get(last).strip().equals(wanted)) {
                return Step.unchanged("toolkit choice", what);
            }
            if (last >= 0) {
                lines.set(last, wanted);
            } else {
                lines.add("# the last --install-nvidia-toolkit of rdc machine setup / renet setup (node-agent prepare saves it)");
                lines.add(wanted);
            }
            byte[] content = (String.join("\n", lines) + "\n").getBytes(StandardCharsets.UTF_8);
            if (Files.exists(file)) {
                Files.write(file, content); // in place: the file keeps its owner and mode (0600 root, it may hold secrets)
            } else {
                Files.createDirectories(file.getParent());
                Files.createFile(file, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
                Files.write(file, content);
            }
            return Step.changed("toolkit choice", what);
        } catch (IOException e) {
            return Step.failed("toolkit choice", "cannot write " + HostRoot.AGENT_ENV + " (" + host.toHostPaths(
                    String.valueOf(e.getMessage())) + "); the boot-time setup would not repeat --install-nvidia-toolkit "
                    + choice.flag());
        }
    }
}
