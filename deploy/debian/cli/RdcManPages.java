import io.rediacc.gpu.cli.CommandTree;
import picocli.codegen.docgen.manpage.ManPageGenerator;

import java.io.File;

/**
 * rdc.adoc, rdc-machine.adoc, rdc-machine-setup.adoc, ...: one AsciiDoc man page per command, from
 * rdc's own picocli model. Run by the build as a single-file program (java -cp rdc.jar:picocli-codegen.jar
 * RdcManPages.java OUTDIR) because rdc's tree lives in CommandTree and its models are built in code (no
 * annotations): picocli's ManPageGenerator given a command class would see neither.
 */
public class RdcManPages {
    public static void main(String[] args) throws Exception {
        System.exit(ManPageGenerator.generateManPage(new File(args[0]), null, new boolean[0], true,
                CommandTree.commandLine().getCommandSpec()));
    }
}
