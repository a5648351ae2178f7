package io.rediacc.gpu.cli;

import io.quarkus.picocli.runtime.PicocliCommandLineFactory;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import picocli.CommandLine;

/** Hands Quarkus the command line with rdc's error handling ({@link RdcCommandLine}). */
@ApplicationScoped
class CommandLineSetup {

    @Produces
    CommandLine commandLine(PicocliCommandLineFactory factory) {
        return RdcCommandLine.configure(factory.create());
    }
}
