package io.rediacc.gpu.cli;

import io.rediacc.gpu.cli.failure.ExitCodes;
import picocli.CommandLine;

/**
 * rdc's entry point: plain picocli, nothing else starts. A command is one short-lived JVM, so
 * every millisecond of framework start-up is paid on every call (see the README's "Start-up").
 */
public final class RdcMain {

    private RdcMain() {
    }

    public static void main(String[] args) {
        if (args.length == 1 && (args[0].equals("--version") || args[0].equals("-V"))) {
            // what picocli prints for --version, without building the command tree first (most of the
            // command's time): the same provider, the same lines, exit 0
            for (String line : new RdcCommand.Version().getVersion()) {
                System.out.println(line);
            }
            System.exit(ExitCodes.OK);
        }
        // only the branch of the tree the arguments name: building picocli's model of every command was
        // most of a command's own start-up (CommandTree)
        System.exit(commandLineFor(args).execute(args));
    }

    /** The branch of rdc's command tree that {@code args} name, with rdc's error handling and help layout. */
    public static CommandLine commandLineFor(String... args) {
        return CommandTree.commandLine(args);
    }

    /** rdc's whole command tree with rdc's error handling and help layout. */
    public static CommandLine commandLine() {
        return CommandTree.commandLine();
    }
}
