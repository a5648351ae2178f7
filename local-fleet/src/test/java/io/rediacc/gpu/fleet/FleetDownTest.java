package io.rediacc.gpu.fleet;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

/** {@code ./fleet down} says what it stops before the wait (it was silent for 24–34 s), and when it is done. */
class FleetDownTest {

    @Test
    void downSaysWhatItStopsThenThatItStopped(@TempDir Path state) throws Exception {
        Process fleetJvm = new ProcessBuilder("sleep", "300").start(); // stands in for the fleet's JVM
        Files.writeString(state.resolve("pids"), fleetJvm.pid() + "\n");
        Files.writeString(state.resolve("ready"), Long.toString(fleetJvm.pid()));
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            new Fleet(state, state).down();
        } finally {
            System.setOut(original);
            fleetJvm.destroyForcibly();
        }

        String said = captured.toString(StandardCharsets.UTF_8);
        assertThat(said).startsWith("stopping the fleet (pid " + fleetJvm.pid() + "): ")
                .contains("repo daemons (each stops its containers)")
                .endsWith("fleet stopped; its state stays in .fleet/ for the next ./fleet up (./fleet reset starts clean)\n");
        assertThat(fleetJvm.isAlive()).isFalse();
        assertThat(state.resolve("pids")).doesNotExist();
        assertThat(state.resolve("ready")).doesNotExist();
    }

    @Test
    void downWithoutAFleetSaysSo(@TempDir Path state) throws Exception {
        PrintStream original = System.out;
        ByteArrayOutputStream captured = new ByteArrayOutputStream();
        try {
            System.setOut(new PrintStream(captured, true, StandardCharsets.UTF_8));
            new Fleet(state, state).down();
        } finally {
            System.setOut(original);
        }
        assertThat(captured.toString(StandardCharsets.UTF_8)).isEqualTo("no fleet is running here\n");
    }
}
