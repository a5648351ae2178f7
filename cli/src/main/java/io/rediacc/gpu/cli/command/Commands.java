package io.rediacc.gpu.cli.command;

import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * rdc's commands are picocli models built in code (picocli's programmatic API), not read from
 * {@code @Command}/{@code @Option} annotations: reading an annotation makes the JDK generate a proxy
 * class for its type at run time, which the class-data sharing archive cannot hold, and those proxies
 * were most of what was left of a command's start-up (README "Start-up"). These helpers give every
 * command what the annotations gave it: its name, description, examples and the standard options.
 */
public final class Commands {

    /** The key under which picocli keeps the standard help options (its {@code AutoHelpMixin}). */
    private static final String STANDARD_HELP_OPTIONS = "mixinStandardHelpOptions";

    private Commands() {
    }

    /**
     * A command named {@code name} that runs {@code userObject} (a {@code Callable} or {@code Runnable};
     * anything else is a group that needs a subcommand), with its description and an "Examples:" footer.
     * Its options follow; {@link #withStandardHelpOptions} ends it.
     */
    public static CommandSpec command(Object userObject, String name, String[] description, String... footer) {
        CommandSpec spec = CommandSpec.wrapWithoutInspection(userObject).name(name);
        spec.usageMessage().description(description).footerHeading("%nExamples:%n").footer(footer);
        return spec;
    }

    /**
     * Adds {@code -h, --help} and {@code -V, --version} last, as {@code mixinStandardHelpOptions = true}
     * does (the same names, descriptions and mixin key, so help, completion and man pages read as before).
     */
    public static CommandSpec withStandardHelpOptions(CommandSpec spec) {
        CommandSpec help = CommandSpec.create();
        help.addOption(OptionSpec.builder("${picocli.help.name.0:--h}", "${picocli.help.name.1:---help}")
                .usageHelp(true).descriptionKey("mixinStandardHelpOptions.help")
                .description("Show this help message and exit.").type(boolean.class).initialValue(false).build());
        help.addOption(OptionSpec.builder("${picocli.version.name.0:--V}", "${picocli.version.name.1:---version}")
                .versionHelp(true).descriptionKey("mixinStandardHelpOptions.version")
                .description("Print version information and exit.").type(boolean.class).initialValue(false).build());
        return spec.addMixin(STANDARD_HELP_OPTIONS, help);
    }

    /** A flag: {@code false} unless given. */
    public static OptionSpec flag(String name, String description) {
        return OptionSpec.builder(name).description(description).type(boolean.class).initialValue(false).build();
    }

    /** An option with one value of {@code type}; {@code null} unless given. */
    public static OptionSpec option(String name, String paramLabel, Class<?> type, String description) {
        return OptionSpec.builder(name).paramLabel(paramLabel).type(type).description(description).build();
    }

    /** The positional parameter at {@code index}, one value, required. */
    public static PositionalParamSpec parameter(String index, String paramLabel, String description) {
        return PositionalParamSpec.builder().index(index).paramLabel(paramLabel).type(String.class).required(true)
                .description(description).build();
    }

    /** A flag's value. */
    public static boolean isSet(OptionSpec flag) {
        return Boolean.TRUE.equals(flag.getValue());
    }
}
