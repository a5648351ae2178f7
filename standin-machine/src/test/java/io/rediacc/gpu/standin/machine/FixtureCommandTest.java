package io.rediacc.gpu.standin.machine;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.file.Files;
import java.nio.file.Path;

import static org.assertj.core.api.Assertions.assertThat;

class FixtureCommandTest {

    @TempDir
    Path tmp;

    private final StringWriter out = new StringWriter();
    private final StringWriter err = new StringWriter();

    private int run(String... args) {
        return new CommandLine(new FixtureCommand()).setOut(new PrintWriter(out)).setErr(new PrintWriter(err)).execute(args);
    }

    @Test
    void buildsAMachineWithItsGpusStandInsAndHostName() throws Exception {
        Path dir = tmp.resolve("m");

        assertThat(run("--nvidia", "2", "--amd", "1", "--hostname", "sim-1", dir.toString())).as(err.toString()).isZero();

        assertThat(out.toString()).contains("root=" + dir.resolve("root"), "path=" + dir.resolve("bin"));
        assertThat(Files.readString(dir.resolve("root/etc/hostname")).strip()).isEqualTo("sim-1");
        assertThat(dir.resolve("bin/nvidia-smi")).isExecutable();
        assertThat(dir.resolve("root/dev/nvidia1")).exists();
        assertThat(dir.resolve("root/dev/kfd")).exists();
    }

    @Test
    void refusesADirectoryThatIsNotEmpty() throws Exception {
        Files.writeString(tmp.resolve("something"), "x");

        assertThat(run(tmp.toString())).isEqualTo(2);
        assertThat(err.toString()).contains("is not empty");
    }
}
