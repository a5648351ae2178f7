package io.rediacc.gpu.fleet;

import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.parallel.Execution;
import org.junit.jupiter.api.parallel.ExecutionMode;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The root README's "A session", replayed as written on a fresh fleet: the fleet starts as
 * {@code ./fleet up -d} starts it (its lines must appear in its log, in order), then every command runs
 * in bash, in a directory whose {@code .fleet} is that fleet's state, one after the other, and prints
 * what the README shows with the exit code it shows (see {@link ReadmeSession} for what is normalised).
 * Two commands need a terminal (an interactive shell in a container) and are not replayed. The session
 * writes its own compose file in a directory of its own and each later spelling of its GPU line with a
 * command it shows, as a reader does: nothing is written here that the README does not show; a
 * {@code cd} is carried to the later commands like {@code source} and {@code export}.
 */
@Execution(ExecutionMode.SAME_THREAD) // one after another on SharedFleet's fleet, in @Order; other ITs run beside them
@Order(1) // first: the session is what a fresh fleet answers (SharedFleet)
class ReadmeSessionIT {

    static final Path REPO = SharedFleet.REPO;
    static final Path WORK = SharedFleet.WORK;
    /** A {@code cd DIR} that starts a command or follows an {@code &&}. */
    private static final Pattern CD = Pattern.compile("(?:^|&&\\s*)cd\\s+([^\\s;&|#]+)");
    static final List<String> NEEDS_A_TERMINAL = List.of("docker exec -it trainer sh",
            "docker run -dit --name shell ubuntu:24.04 sh && docker attach shell");

    @BeforeAll
    static void startFleet() throws Exception {
        SharedFleet.fresh();
    }

    @Test
    void theReadmesSessionIsWhatAFreshFleetAnswers() throws Exception {
        List<ReadmeSession.Step> steps = ReadmeSession.parse(Files.readString(REPO.resolve("README.md")));
        assertThat(steps.get(0).command()).isEqualTo("./fleet up -d");
        List<String> problems = new ArrayList<>(); // every difference at once, with what the fleet printed
        String start = ReadmeSession.mismatch(steps.get(0).expected(), Files.readAllLines(SharedFleet.LOG), true);
        if (start != null) {
            problems.add("$ ./fleet up -d\n  " + start);
        }

        List<String> shell = new ArrayList<>(List.of("shopt -s expand_aliases"));
        List<String> skipped = new ArrayList<>();
        List<String> transcript = new ArrayList<>();
        for (ReadmeSession.Step step : steps.subList(1, steps.size())) {
            if (step.interactive()) {
                skipped.add(step.command());
                continue;
            }
            String command = step.command();
            List<String> script = new ArrayList<>(shell);
            script.add(command);
            Process p = new ProcessBuilder("bash", "-c", String.join("\n", script)).directory(WORK.toFile())
                    .redirectErrorStream(true).start();
            byte[] out = p.getInputStream().readAllBytes();
            assertThat(p.waitFor(120, TimeUnit.SECONDS)).as(command).isTrue();
            List<String> printed = new String(out, StandardCharsets.UTF_8).replace("\r", "").lines().toList();
            transcript.add("$ " + command);
            transcript.addAll(printed);
            transcript.add("[exit " + p.exitValue() + "]");
            Files.write(WORK.resolve("session.txt"), transcript);
            if (p.exitValue() != step.exit()) {
                problems.add("$ " + command + "\n  exits " + p.exitValue() + ", the README shows " + step.exit());
            }
            String mismatch = ReadmeSession.mismatch(step.expected(), printed, false);
            if (mismatch != null) {
                problems.add("$ " + command + "\n  " + mismatch + "\n  printed:\n    " + String.join("\n    ", printed));
            }
            if (CD.matcher(command).find()) { // where the session stands: later commands run there too
                shell.add(command);
            }
            if (command.startsWith("source ") || command.startsWith("export ")) {
                shell.add(command);
            }
        }
        assertThat(problems).as("the README's session differs from what the fleet printed (%s)", WORK.resolve("session.txt")).isEmpty();
        assertThat(skipped).as("commands shown but not replayed").containsExactlyElementsOf(NEEDS_A_TERMINAL);
    }
}
