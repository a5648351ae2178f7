package io.rediacc.gpu.cli;

import org.junit.jupiter.api.Test;
import io.rediacc.gpu.cli.repo.DeviceChangeOptions;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.lang.annotation.Annotation;
import java.lang.reflect.Field;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * rdc builds only the branch of its command tree that the arguments name (start-up, issue 17); a
 * user must not be able to tell: the same help, the same errors, the same suggestions as the whole tree.
 */
class CommandTreeTest {

    @Test
    void everyNodeIsNamedAsItsCommandNamesItself() {
        for (CommandTree node : nodes(CommandTree.RDC, new ArrayList<>())) {
            CommandSpec spec = node.command().get();
            assertThat(spec.name()).as(node.name()).isEqualTo(node.name());
            // the tree is declared once, in CommandTree: a command's own model holds no subcommands
            assertThat(spec.subcommands()).as(node.name()).isEmpty();
        }
    }

    @Test
    void noCommandCarriesPicocliAnnotations() {
        // the models are built in code (Commands): picocli would not read an annotation on these objects, and the
        // JDK would make a proxy class for it at start-up if anything did
        List<Class<?>> classes = new ArrayList<>(List.of(DeviceChangeOptions.class));
        for (CommandTree node : nodes(CommandTree.RDC, new ArrayList<>())) {
            classes.add(node.command().get().userObject().getClass());
        }
        for (Class<?> type : classes) {
            List<Annotation> annotations = new ArrayList<>(List.of(type.getAnnotations()));
            for (Field field : type.getDeclaredFields()) {
                annotations.addAll(List.of(field.getAnnotations()));
            }
            for (Method method : type.getDeclaredMethods()) {
                annotations.addAll(List.of(method.getAnnotations()));
            }
            assertThat(annotations).as(type.getName())
                    .noneMatch(a -> a.annotationType().getName().startsWith("picocli."));
        }
    }

    @Test
    void theBranchOfACommandHoldsOnlyThatCommandAndItsAncestors() {
        CommandLine root = CommandTree.commandLine("machine", "list", "-o", "json");

        assertThat(root.getSubcommands()).containsOnlyKeys("machine");
        assertThat(root.getSubcommands().get("machine").getSubcommands()).containsOnlyKeys("list");
        // where the arguments stop naming commands, everything below is there (help lists it, typos are matched to it)
        assertThat(CommandTree.commandLine("machine", "--help").getSubcommands().get("machine").getSubcommands())
                .containsOnlyKeys("list", "gpu", "setup", "remove");
        assertThat(CommandTree.commandLine("--server", "http://x", "machine", "list").getSubcommands())
                .containsOnlyKeys("machine", "repo", "audit", "completion");
    }

    @Test
    void helpErrorsAndSuggestionsReadAsWithTheWholeTree() {
        List<List<String>> cases = new ArrayList<>();
        for (List<String> path : paths(CommandTree.RDC, new ArrayList<>(), new ArrayList<>())) {
            cases.add(plus(path, "--help"));
            cases.add(plus(path, "--no-such-option"));
            cases.add(plus(path, "lsit"));
            cases.add(plus(path, "-o", "xml"));
        }
        cases.add(List.of("machine", "list", "--page", "x"));
        cases.add(List.of("repo", "gpu", "grant", "train-a@gpu-host-1", "--device", "not a device"));
        cases.add(List.of("-o", "json", "machine", "lsit"));
        assertThat(cases).hasSizeGreaterThan(40);
        for (List<String> args : cases) {
            String[] a = args.toArray(String[]::new);
            assertThat(run(CommandTree.commandLine(a), a)).as("rdc " + String.join(" ", args))
                    .isEqualTo(run(CommandTree.commandLine(), a));
        }
    }

    private static String run(CommandLine line, String[] args) {
        StringWriter out = new StringWriter();
        line.setOut(new PrintWriter(out, true)).setErr(new PrintWriter(out, true));
        // --server to a port nothing listens on: a command that gets as far as calling a service fails alike
        int exit = line.execute(args);
        return exit + "\n" + out;
    }

    private static List<CommandTree> nodes(CommandTree node, List<CommandTree> into) {
        into.add(node);
        node.children().forEach(child -> nodes(child, into));
        return into;
    }

    private static List<List<String>> paths(CommandTree node, List<String> path, List<List<String>> into) {
        into.add(List.copyOf(path));
        for (CommandTree child : node.children()) {
            List<String> next = new ArrayList<>(path);
            next.add(child.name());
            paths(child, next, into);
        }
        return into;
    }

    private static List<String> plus(List<String> path, String... more) {
        List<String> args = new ArrayList<>(path);
        args.addAll(List.of(more));
        return args;
    }
}
