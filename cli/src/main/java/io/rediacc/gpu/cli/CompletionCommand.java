package io.rediacc.gpu.cli;

import io.rediacc.gpu.cli.command.Commands;
import picocli.AutoComplete;
import picocli.CommandLine.Model.CommandSpec;

/** {@code rdc completion}: the bash/zsh completion script. */
public class CompletionCommand implements Runnable {

    private CommandSpec spec;

    private CompletionCommand() {
    }

    /** The command's model (built in code: see {@link Commands}). */
    public static CommandSpec spec() {
        CompletionCommand command = new CompletionCommand();
        command.spec = Commands.command(command, "completion",
                new String[]{"Print the shell completion script for bash and zsh."},
                "  source <(rdc completion)                         # this shell",
                "  rdc completion > /etc/bash_completion.d/rdc      # every new shell",
                "  autoload -U +X bashcompinit && bashcompinit && source <(rdc completion)   # zsh");
        return Commands.withStandardHelpOptions(command.spec);
    }

    @Override
    public void run() {
        // the whole tree: this command's own was built for "rdc completion" alone (CommandTree)
        spec.commandLine().getOut().print(AutoComplete.bash("rdc", CommandTree.commandLine()));
        spec.commandLine().getOut().flush();
    }
}
