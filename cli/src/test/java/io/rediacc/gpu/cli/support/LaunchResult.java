package io.rediacc.gpu.cli.support;

import java.util.List;

/** What one rdc run printed and how it exited (stdout and stderr as lines). */
public interface LaunchResult {

    int exitCode();

    List<String> getOutputStream();

    List<String> getErrorStream();

    default String getOutput() {
        return String.join("\n", getOutputStream());
    }

    default String getErrorOutput() {
        return String.join("\n", getErrorStream());
    }
}
