package io.rediacc.gpu.cli;

import picocli.AutoComplete;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** {@code rdc completion}: the bash/zsh completion script. */
@Command(name = "completion", mixinStandardHelpOptions = true,
        description = "Print the shell completion script for bash and zsh.",
        footerHeading = "%nExamples:%n",
        footer = {"  source <(rdc completion)                         # this shell",
                "  rdc completion > /etc/bash_completion.d/rdc      # every new shell",
                "  autoload -U +X bashcompinit && bashcompinit && source <(rdc completion)   # zsh"})
public class CompletionCommand implements Runnable {

    @Spec
    CommandSpec spec;

    @Override
    public void run() {
        // the whole tree: this command's own was built for "rdc completion" alone (CommandTree)
        spec.commandLine().getOut().print(AutoComplete.bash("rdc", CommandTree.commandLine()));
        spec.commandLine().getOut().flush();
    }
}
