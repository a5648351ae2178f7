package io.rediacc.gpu.gate.policy;

import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.statistics.Statistics;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static io.rediacc.gpu.gate.policy.PolicyTestKit.create;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.grants;
import static io.rediacc.gpu.gate.policy.PolicyTestKit.send;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Hostile bodies never crash the gate, and the gate reads a container's HostConfig the way the
 * daemon will: checked against {@link GoModel}, a small model of Go's {@code encoding/json} field
 * matching written from Go's source, on generated key spellings (case, ſ/K folding, escapes, twins).
 */
class GoJsonReaderProperties {

    /** The HostConfig fields the generator plays with, and whether their value is a boolean. */
    private static final List<String> FIELDS = List.of("Privileged", "ReadonlyRootfs", "Memory", "CpuShares");

    @Property(tries = 1000)
    void randomBodiesNeverCrashTheGate(@ForAll("hostileBodies") byte[] body) {
        Verdict verdict = send("/v1.50/containers/create", body, grants());

        assertThat(verdict).isNotNull();
        if (verdict instanceof Verdict.Deny deny) {
            assertThat(deny.refusal().status()).isBetween(400, 499);
            assertThat(deny.refusal().message()).isNotBlank();
        }
    }

    @Property(tries = 1000)
    void theGateDecidesOnTheValueGoWouldUseOrRefusesWhenKeysFoldTogether(@ForAll("createBodies") CreateBody body) {
        Verdict verdict = create(body.json());

        boolean collision = GoModel.anyTwoKeysFoldTogether(body.topLevelKeys())
                || body.hostConfigs().stream().anyMatch(GoModel::anyTwoKeysFoldTogether);
        Statistics.label("model").collect(collision ? "keys fold together" : "privileged=" + body.privilegedAsGoReadsIt());
        if (collision) {
            assertThat(verdict).as(body.json()).isInstanceOf(Verdict.Deny.class);
            assertThat(((Verdict.Deny) verdict).refusal().status()).as(body.json()).isEqualTo(400);
        } else if (body.privilegedAsGoReadsIt()) {
            assertThat(verdict).as(body.json()).isInstanceOf(Verdict.Deny.class);
            assertThat(((Verdict.Deny) verdict).refusal().rule()).as(body.json()).isEqualTo(RefusalMessages.RULE_PRIVILEGED);
        } else {
            assertThat(verdict).as(body.json()).isEqualTo(new Verdict.Allow());
        }
    }

    @Property(tries = 500)
    void theGatesFoldingAgreesWithTheModel(@ForAll("spellings") Spelling a, @ForAll("spellings") Spelling b) {
        assertThat(GoJsonFolding.equalFold(a.decoded(), b.decoded()))
                .as("%s vs %s", a.decoded(), b.decoded())
                .isEqualTo(GoModel.folded(a.decoded()).equals(GoModel.folded(b.decoded())));
    }

    // ---- generators ------------------------------------------------------------------------

    /** One JSON key: how it is written in the body, and the string Go decodes from it. */
    record Spelling(String json, String decoded) {
    }

    /** One member of a generated object. */
    record Member(Spelling key, String jsonValue, Boolean boolValue) {
    }

    /** A container create body: its top-level keys (decoded) and the members of each HostConfig object. */
    record CreateBody(String json, List<String> topLevelKeys, List<List<String>> hostConfigs, List<List<Member>> hostConfigMembers) {

        /** What the daemon reads for HostConfig.Privileged when no keys collide: the one member that matches. */
        boolean privilegedAsGoReadsIt() {
            Boolean value = null;
            for (List<Member> hc : hostConfigMembers) {
                for (Member m : hc) {
                    if (GoModel.matchesField(m.key().decoded(), "Privileged")) {
                        value = m.boolValue(); // last one wins, across merged HostConfig objects too
                    }
                }
            }
            return Boolean.TRUE.equals(value);
        }
    }

    @Provide
    Arbitrary<Spelling> spellings() {
        return Arbitraries.oneOf(
                Arbitraries.of(FIELDS).flatMap(GoJsonReaderProperties::spell),
                Arbitraries.of("Privileged").flatMap(GoJsonReaderProperties::misspell));
    }

    @Provide
    Arbitrary<CreateBody> createBodies() {
        Arbitrary<Member> member = Arbitraries.of(FIELDS).flatMap(field -> Combinators.combine(
                Arbitraries.frequencyOf(
                        net.jqwik.api.Tuple.of(6, spell(field)),
                        net.jqwik.api.Tuple.of(1, misspell(field))),
                Arbitraries.of(true, false),
                Arbitraries.integers().between(0, 1 << 20)).as((key, flag, number) ->
                field.equals("Privileged") || field.equals("ReadonlyRootfs")
                        ? new Member(key, Boolean.toString(flag), flag)
                        : new Member(key, Integer.toString(number), null)));
        Arbitrary<List<Member>> hostConfig = member.list().ofMinSize(0).ofMaxSize(4);
        Arbitrary<List<Spelling>> hostConfigKeys = spell("HostConfig").list().ofMinSize(1).ofMaxSize(2);
        return Combinators.combine(hostConfigKeys, hostConfig.list().ofSize(2)).as((keys, objects) -> {
            StringBuilder json = new StringBuilder("{\"Image\":\"ubuntu\"");
            List<String> top = new ArrayList<>(List.of("Image"));
            List<List<String>> hcKeys = new ArrayList<>();
            List<List<Member>> hcMembers = new ArrayList<>();
            for (int i = 0; i < keys.size(); i++) {
                List<Member> members = objects.get(i);
                top.add(keys.get(i).decoded());
                json.append(",\"").append(keys.get(i).json()).append("\":{");
                List<String> decoded = new ArrayList<>();
                for (int j = 0; j < members.size(); j++) {
                    Member m = members.get(j);
                    json.append(j == 0 ? "" : ",").append('"').append(m.key().json()).append("\":").append(m.jsonValue());
                    decoded.add(m.key().decoded());
                }
                json.append('}');
                hcKeys.add(decoded);
                hcMembers.add(members);
            }
            json.append('}');
            return new CreateBody(json.toString(), top, hcKeys, hcMembers);
        });
    }

    @Provide
    Arbitrary<byte[]> hostileBodies() {
        Arbitrary<byte[]> randomBytes = Arbitraries.bytes().array(byte[].class).ofMaxSize(300);
        Arbitrary<String> jsonish = Arbitraries.strings()
                .withChars("{}[]\":,\\ntrufalse0123456789.-+eE \t\r\nuHostConfigPrivileged\u017f\u212a\u0000\uffff")
                .ofMaxLength(200);
        Arbitrary<String> mutated = createBodies().flatMap(b -> Arbitraries.integers().between(0, b.json().length())
                .flatMap(cut -> Arbitraries.of("", "}", "\"", "\\u", "\\ud800", "{\"a\":", ",,", "\u0000", "]")
                        .map(insert -> b.json().substring(0, cut) + insert + b.json().substring(cut))));
        return Arbitraries.oneOf(randomBytes,
                jsonish.map(PolicyTestKit::utf8),
                mutated.map(PolicyTestKit::utf8));
    }

    /** A spelling of {@code field} that Go matches to it: per character, maybe another case, ſ or K, maybe \\u-escaped. */
    static Arbitrary<Spelling> spell(String field) {
        List<Arbitrary<String[]>> chars = new ArrayList<>();
        for (char c : field.toCharArray()) {
            List<String> variants = new ArrayList<>(List.of(String.valueOf(c), String.valueOf(Character.toLowerCase(c)),
                    String.valueOf(Character.toUpperCase(c))));
            if (c == 's' || c == 'S') {
                variants.add("\u017f"); // ſ: ToUpper(ToLower(ſ)) = S
            }
            if (c == 'k' || c == 'K') {
                variants.add("\u212a"); // Kelvin sign: ToLower = k
            }
            chars.add(Arbitraries.of(variants).flatMap(v -> Arbitraries.of(false, false, false, true)
                    .map(escape -> new String[]{escape ? escapeJson(v) : v, v})));
        }
        return Combinators.combine(chars).as(parts -> {
            StringBuilder json = new StringBuilder();
            StringBuilder decoded = new StringBuilder();
            for (String[] p : parts) {
                json.append(p[0]);
                decoded.append(p[1]);
            }
            return new Spelling(json.toString(), decoded.toString());
        });
    }

    /** A near miss Go does not match to {@code field}: an accent, a suffix, an invisible character. */
    static Arbitrary<Spelling> misspell(String field) {
        return Arbitraries.of(field + "_", field.replaceFirst("e", "\u00e9"), field + "\u200b", "X" + field,
                        field.substring(1), field.replaceFirst("i", "\u0131").replaceFirst("I", "\u0130") + "s")
                .map(s -> new Spelling(s, s));
    }

    private static String escapeJson(String s) {
        StringBuilder out = new StringBuilder();
        for (char c : s.toCharArray()) {
            out.append(String.format("\\u%04x", (int) c));
        }
        return out.toString();
    }

    /**
     * Go's {@code encoding/json} (1.21+, decode.go / fold.go): a key selects the field whose name it
     * equals exactly, else the field whose folded name equals the key's folded name; folding maps
     * ASCII a-z to A-Z and every other rune r to {@code unicode.ToUpper(unicode.ToLower(r))}. Every
     * matching key is decoded in order, so the last one wins and objects decoded into the same
     * struct field merge.
     */
    static final class GoModel {

        private GoModel() {
        }

        static String folded(String key) {
            StringBuilder out = new StringBuilder();
            key.codePoints().forEach(r -> {
                if (r < 0x80) {
                    out.appendCodePoint(r >= 'a' && r <= 'z' ? r - ('a' - 'A') : r);
                } else {
                    out.appendCodePoint(Character.toUpperCase(Character.toLowerCase(r)));
                }
            });
            return out.toString();
        }

        static boolean matchesField(String key, String field) {
            return key.equals(field) || folded(key).equals(folded(field));
        }

        /** True when two keys of one object would reach the same field (Go keeps the last; the gate must refuse). */
        static boolean anyTwoKeysFoldTogether(List<String> keys) {
            Set<String> seen = new HashSet<>();
            for (String key : keys) {
                if (!seen.add(folded(key))) {
                    return true;
                }
            }
            return false;
        }
    }
}
