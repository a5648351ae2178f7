package io.rediacc.gpu.cli;

import io.rediacc.gpu.cli.audit.AuditCommand;
import io.rediacc.gpu.cli.machine.MachineCommand;
import io.rediacc.gpu.cli.machine.MachineGpuCommand;
import io.rediacc.gpu.cli.machine.MachineGpuListCommand;
import io.rediacc.gpu.cli.machine.MachineListCommand;
import io.rediacc.gpu.cli.machine.MachineRemoveCommand;
import io.rediacc.gpu.cli.machine.setup.MachineSetupCommand;
import io.rediacc.gpu.cli.repo.GrantCommand;
import io.rediacc.gpu.cli.repo.RepoCommand;
import io.rediacc.gpu.cli.repo.RepoGpuCommand;
import io.rediacc.gpu.cli.repo.RepoGpuListCommand;
import io.rediacc.gpu.cli.repo.RevokeCommand;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

import java.util.List;
import java.util.function.Supplier;

/**
 * rdc's command tree, in one place (each command's {@code spec()} builds that command alone, see
 * {@link Commands}).
 *
 * <p>Why not the whole tree at once: picocli needs the model of every command it is given before it
 * parses a single argument, and for a command that lives a fraction of a second building those models
 * was most of rdc's own start-up. {@link #commandLine(String...)} builds only the
 * branch the arguments name ({@code rdc machine list} builds rdc, machine and list); where the
 * arguments stop naming commands (an option, a typo, nothing) the whole subtree below is built, so
 * usage help, "did you mean" suggestions and errors read exactly as with the whole tree.
 * {@link #commandLine()} builds everything (completion, man pages, the root's help).
 */
public record CommandTree(String name, Supplier<CommandSpec> command, List<CommandTree> children) {

    // lambdas, not method references: a method reference loads its class when the tree is declared, a lambda
    // only when it runs, so rdc machine list loads 3 of the command classes (and what they refer to), not 14
    public static final CommandTree RDC = node("rdc", () -> RdcCommand.spec(),
            node("machine", () -> MachineCommand.spec(),
                    node("list", () -> MachineListCommand.spec()),
                    node("gpu", () -> MachineGpuCommand.spec(),
                            node("list", () -> MachineGpuListCommand.spec())),
                    node("setup", () -> MachineSetupCommand.spec()),
                    node("remove", () -> MachineRemoveCommand.spec())),
            node("repo", () -> RepoCommand.spec(),
                    node("gpu", () -> RepoGpuCommand.spec(),
                            node("grant", () -> GrantCommand.spec()),
                            node("revoke", () -> RevokeCommand.spec()),
                            node("list", () -> RepoGpuListCommand.spec()))),
            node("audit", () -> AuditCommand.spec()),
            node("completion", () -> CompletionCommand.spec()));

    private static CommandTree node(String name, Supplier<CommandSpec> command, CommandTree... children) {
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
        CommandLine line = new CommandLine(command.get());
        addChildren(line, args, depth);
        return line;
    }

    private void addChildren(CommandLine line, List<String> args, int depth) {
        CommandTree named = depth < args.size() ? child(args.get(depth)) : null;
        for (CommandTree child : named == null ? children : List.of(named)) {
            CommandLine sub = new CommandLine(child.command.get());
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
