package io.rediacc.gpu.gate.policy;

import org.junit.jupiter.api.Test;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Every rule id the gate can put in {@code gpu.gate-decisions.v1} is one of {@link RefusalMessages#ruleIds()},
 * and docs/EVENTS.md lists exactly those: a consumer that alerts on a rule id can rely on the list.
 */
class RuleIdsDocumentedTest {

    private static final Pattern TABLE_ROW = Pattern.compile("^\\| `([a-z0-9-]+)` \\| (\\d{3}) \\|", Pattern.MULTILINE);
    /** A refusal built with a rule id spelt out instead of a {@code RULE_*} constant. */
    private static final Pattern LITERAL_RULE = Pattern.compile(
            "(new Refusal|new PolicyRefusal|PolicyRefusal\\.\\w+)\\(\\s*(\\d+\\s*,\\s*)?\"");

    @Test
    void ruleIdsAreDistinctAndWellFormed() {
        List<String> ids = RefusalMessages.ruleIds();
        assertThat(ids).hasSizeGreaterThan(40).doesNotHaveDuplicates().allMatch(id -> id.matches("[a-z][a-z0-9-]*"));
        assertThat(ids).contains("cdi-not-granted", "grants-not-loaded", "gate-error");
    }

    @Test
    void noRefusalInMainCodeSpellsItsRuleIdOut() throws IOException {
        List<String> offenders = new ArrayList<>();
        try (Stream<Path> files = Files.walk(Path.of("src/main/java"))) {
            for (Path f : files.filter(p -> p.toString().endsWith(".java")).toList()) {
                Matcher m = LITERAL_RULE.matcher(Files.readString(f));
                while (m.find()) {
                    offenders.add(f + ": " + m.group());
                }
            }
        }
        assertThat(offenders).as("use a RefusalMessages.RULE_* constant, so ruleIds() stays complete").isEmpty();
    }

    @Test
    void eventsMdListsExactlyTheRuleIdsTheGateEmits() throws IOException {
        String doc = Files.readString(Path.of("../docs/EVENTS.md"));
        int table = doc.indexOf("<!-- rule ids -->");
        assertThat(table).as("docs/EVENTS.md has the rule id table").isPositive();
        int end = doc.indexOf("\n\n", doc.indexOf("|---|", table));
        Matcher m = TABLE_ROW.matcher(doc.substring(table, end < 0 ? doc.length() : end));
        List<String> documented = new ArrayList<>();
        while (m.find()) {
            documented.add(m.group(1));
        }
        assertThat(documented).doesNotHaveDuplicates().containsExactlyInAnyOrderElementsOf(RefusalMessages.ruleIds());
    }

    @Test
    void policyMdExplainsEveryRuleId() throws IOException {
        String policy = Files.readString(Path.of("POLICY.md"));
        assertThat(RefusalMessages.ruleIds()).allSatisfy(id -> assertThat(policy).as("POLICY.md names %s", id).contains("`" + id + "`"));
    }
}
