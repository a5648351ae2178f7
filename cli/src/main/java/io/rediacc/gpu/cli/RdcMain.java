package io.rediacc.gpu.cli;

import picocli.CommandLine;

/**
 * rdc's entry point: plain picocli, nothing else starts. A command is one short-lived JVM, so
 * every millisecond of framework start-up is paid on every call (see the README's "Start-up").
 */
public final class RdcMain {

    private RdcMain() {
    }

    public static void main(String[] args) {
        System.exit(commandLine().execute(args));
    }

    /** rdc's command tree with rdc's error handling and help layout. */
    public static CommandLine commandLine() {
        return RdcCommandLine.configure(new CommandLine(new RdcCommand()));
    }
}
