package io.rediacc.gpu.contracts.properties;

import io.rediacc.gpu.contracts.cdi.CdiName;
import io.rediacc.gpu.contracts.cdi.InvalidCdiNameException;
import io.rediacc.gpu.contracts.identity.InvalidIdentifierException;
import io.rediacc.gpu.contracts.identity.RepoRef;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

import java.util.regex.Pattern;

import static org.assertj.core.api.Assertions.assertThat;

/** Hostile input never crashes the parsers, and they agree with the specification's regular expressions. */
class CdiNameProperties {

    private static final Pattern KIND_PART = Pattern.compile("[A-Za-z](?:[A-Za-z0-9_.-]*[A-Za-z0-9])?");
    private static final Pattern DEVICE = Pattern.compile("[A-Za-z0-9](?:[A-Za-z0-9_.:-]*[A-Za-z0-9])?");

    @Property(tries = 3000)
    void anyStringEitherParsesOrIsRefusedWithAMessage(@ForAll("nameLike") String input) {
        try {
            CdiName name = CdiName.parse(input);
            assertThat(name.qualified()).isEqualTo(input);
        } catch (InvalidCdiNameException e) {
            assertThat(e.getMessage()).isNotBlank();
            assertThat(e.part()).isNotNull();
        }
    }

    @Property(tries = 3000)
    void parsingAgreesWithTheSpecificationsGrammar(@ForAll("nameLike") String input) {
        boolean expected = false;
        int eq = input.indexOf('=');
        if (!input.startsWith("/") && eq >= 0 && input.length() <= CdiName.MAX_LENGTH) {
            String kind = input.substring(0, eq);
            int slash = kind.indexOf('/');
            expected = slash >= 0 && KIND_PART.matcher(kind.substring(0, slash)).matches()
                    && KIND_PART.matcher(kind.substring(slash + 1)).matches()
                    && DEVICE.matcher(input.substring(eq + 1)).matches();
        }
        assertThat(CdiName.isValid(input)).as(input).isEqualTo(expected);
    }

    @Property(tries = 2000)
    void validNamesRoundTrip(@ForAll("validNames") String input) {
        assertThat(CdiName.parse(input).qualified()).isEqualTo(input);
    }

    @Property(tries = 3000)
    void repoReferencesNeverCrash(@ForAll("refLike") String input) {
        try {
            RepoRef ref = RepoRef.parse(input);
            assertThat(ref.toString()).isEqualTo(input);
        } catch (InvalidIdentifierException e) {
            assertThat(e.getMessage()).isNotBlank();
        }
    }

    @Provide
    Arbitrary<String> nameLike() {
        Arbitrary<String> alphabet = Arbitraries.strings().withChars("aZ09._-:=/ @\u017f\u212a\u00e9\t").ofMaxLength(40);
        Arbitrary<String> unicode = Arbitraries.strings().all().ofMaxLength(30);
        return Arbitraries.oneOf(alphabet, unicode, validNames(), validNames().map(s -> s + "="),
                validNames().map(s -> "/" + s), validNames().map(s -> s.replace("/", "")));
    }

    @Provide
    Arbitrary<String> validNames() {
        Arbitrary<String> part = Combinators.combine(Arbitraries.chars().alpha(),
                Arbitraries.strings().withChars("abcXYZ019_.-").ofMaxLength(8), Arbitraries.chars().alpha().numeric())
                .as((a, mid, z) -> a + mid + z);
        Arbitrary<String> device = Combinators.combine(Arbitraries.chars().alpha().numeric(),
                Arbitraries.strings().withChars("abcXYZ019_.:-").ofMaxLength(10), Arbitraries.chars().alpha().numeric())
                .as((a, mid, z) -> a + mid + z);
        return Combinators.combine(part, part, device).as((v, c, d) -> v + "/" + c + "=" + d);
    }

    @Provide
    Arbitrary<String> refLike() {
        return Arbitraries.oneOf(Arbitraries.strings().withChars("ab-_.9@/ \u0000").ofMaxLength(20),
                Arbitraries.strings().all().ofMaxLength(20));
    }
}
