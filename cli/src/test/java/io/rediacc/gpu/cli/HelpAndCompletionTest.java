package io.rediacc.gpu.cli;

import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.support.LaunchResult;
import io.rediacc.gpu.cli.support.Rdc;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

class HelpAndCompletionTest {

    static final List<String> COMMANDS = List.of("", "machine", "machine list", "machine gpu", "machine gpu list", "repo",
            "repo gpu", "repo gpu grant", "repo gpu revoke", "repo gpu list", "completion");

    @Test
    void everyCommandExplainsItselfWithExamples() {
        for (String command : COMMANDS) {
            String[] args = (command + " --help").strip().split(" ");
            LaunchResult result = Rdc.bare(args);
            assertThat(result.exitCode()).as("rdc %s --help", command).isZero();
            assertThat(result.getOutput()).as("rdc %s --help", command)
                    .startsWith("Usage: rdc " + command)
                    .contains("Examples:", "-o, --output=<format>");
        }
    }

    @Test
    void aMistypedSubcommandOrOptionGetsADidYouMean() {
        LaunchResult subcommand = Rdc.bare("repo", "gpu", "grnt", "gpu-a@m1", "--device", "nvidia.com/gpu=0");
        assertThat(subcommand.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(subcommand.getErrorOutput()).contains("did you mean grant?");

        LaunchResult option = Rdc.bare("repo", "gpu", "grant", "gpu-a@m1", "--device", "nvidia.com/gpu=0", "--exclusiv");
        assertThat(option.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(option.getErrorOutput()).contains("; did you mean --exclusive");
    }

    @Test
    void theTopLevelHelpListsTheExitCodes() {
        LaunchResult result = Rdc.bare("--help");

        assertThat(result.getOutput()).contains("Exit codes: 0 ok, 1 error", "3 not found", "4 conflict", "5 recorded but not yet enforced");
    }

    @Test
    void completionScriptCompletesTheCommandTree() {
        LaunchResult result = Rdc.bare("completion");

        assertThat(result.exitCode()).isZero();
        assertThat(result.getOutput()).contains("complete -F _complete_rdc", "machine", "repo", "grant", "revoke", "--device",
                "--exclusive", "(\"table\" \"json\" \"yaml\")");
    }

    @Test
    void aCommandGroupWithoutACommandIsAUsageError() {
        LaunchResult result = Rdc.bare("repo", "gpu");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.getErrorStream()).containsExactly("Missing required subcommand (see 'rdc repo gpu --help')");
    }

    @Test
    void anUnknownOutputFormatIsAUsageError() {
        LaunchResult result = Rdc.bare("machine", "list", "-o", "xml");

        assertThat(result.exitCode()).isEqualTo(ExitCodes.USAGE);
        assertThat(result.getErrorStream()).singleElement().asString()
                .contains("Invalid value for option '--output'", "table, json, yaml");
    }
}
