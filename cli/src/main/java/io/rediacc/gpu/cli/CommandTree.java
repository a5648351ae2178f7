package io.rediacc.gpu.cli;

import io.rediacc.gpu.cli.audit.AuditCommand;
import io.rediacc.gpu.cli.machine.MachineCommand;
import io.rediacc.gpu.cli.machine.MachineGpuCommand;
import io.rediacc.gpu.cli.machine.MachineGpuListCommand;
import io.rediacc.gpu.cli.machine.MachineListCommand;
import io.rediacc.gpu.cli.machine.MachineRemoveCommand;
import io.rediacc.gpu.cli.machine.MachineSetupCommand;
import io.rediacc.gpu.cli.repo.GrantCommand;
import io.rediacc.gpu.cli.repo.RepoCommand;
import io.rediacc.gpu.cli.repo.RepoGpuCommand;
import io.rediacc.gpu.cli.repo.RepoGpuListCommand;
import io.rediacc.gpu.cli.repo.RevokeCommand;
import picocli.CommandLine;

import java.util.List;

/**
 * rdc's command tree, in one place (the commands' {@code @Command} annotations name no subcommands).
 *
 * <p>Why not {@code @Command(subcommands = ...)}: picocli builds the model of every command it is
 * given by reflection before it parses a single argument, and for a command that lives a fraction of
 * a second that model was most of rdc's own start-up. {@link #commandLine(String...)} builds only the
 * branch the arguments name ({@code rdc machine list} builds rdc, machine and list); where the
 * arguments stop naming commands (an option, a typo, nothing) the whole subtree below is built, so
 * usage help, "did you mean" suggestions and errors read exactly as with the whole tree.
 * {@link #commandLine()} builds everything (completion, man pages, the root's help).
 */
public record CommandTree(String name, Class<?> command, List<CommandTree> children) {

    public static final CommandTree RDC = node("rdc", RdcCommand.class,
            node("machine", MachineCommand.class,
                    node("list", MachineListCommand.class),
                    node("gpu", MachineGpuCommand.class,
                            node("list", MachineGpuListCommand.class)),
                    node("setup", MachineSetupCommand.class),
                    node("remove", MachineRemoveCommand.class)),
            node("repo", RepoCommand.class,
                    node("gpu", RepoGpuCommand.class,
                            node("grant", GrantCommand.class),
                            node("revoke", RevokeCommand.class),
                            node("list", RepoGpuListCommand.class))),
            node("audit", AuditCommand.class),
            node("completion", CompletionCommand.class));

    private static CommandTree node(String name, Class<?> command, CommandTree... children) {
        return new CommandTree(name, command, List.of(children));
    }

    /** The whole tree, with rdc's error handling and help layout. */
    public static CommandLine commandLine() {
        return RdcCommandLine.configure(RDC.build(List.of(), 0));
    }

    /** The branch {@code args} name, and everything below where they stop naming commands. */
    public static CommandLine commandLine(String... args) {
        return RdcCommandLine.configure(RDC.build(List.of(args), 0));
    }

    /**
     * This command with, when {@code args[depth]} names one of its subcommands, only that branch; else
     * with all of them. Top down: a subcommand added to its parent takes the parent's inherited
     * options ({@code --server}, {@code -o}, ...) before its own subcommands are added.
     */
    private CommandLine build(List<String> args, int depth) {
        CommandLine line = new CommandLine(command);
        addChildren(line, args, depth);
        return line;
    }

    private void addChildren(CommandLine line, List<String> args, int depth) {
        CommandTree named = depth < args.size() ? child(args.get(depth)) : null;
        for (CommandTree child : named == null ? children : List.of(named)) {
            CommandLine sub = new CommandLine(child.command);
            line.addSubcommand(child.name, sub);
            child.addChildren(sub, args, depth + 1);
        }
    }

    private CommandTree child(String arg) {
        for (CommandTree child : children) {
            if (child.name.equals(arg)) {
                return child;
            }
        }
        return null;
    }
}
