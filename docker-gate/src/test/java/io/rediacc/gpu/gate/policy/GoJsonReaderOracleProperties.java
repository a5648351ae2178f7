package io.rediacc.gpu.gate.policy;

import io.rediacc.gpu.gate.policy.GoJsonReader.Duplicates;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.Tuple;
import net.jqwik.api.statistics.Statistics;

import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.function.Supplier;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The optimised {@link GoJsonReader} (bulk string copies, lazy paths, scanned small objects) reads
 * every input exactly as {@link GoJsonReaderOracle}, the straightforward version it replaced: the
 * same tree, or the same refusal with the same message. Inputs are JSON built from tricky pieces
 * (escapes, surrogates, multi-byte UTF-8, keys that fold together, bad numbers and literals), then
 * often damaged at one byte or cut short.
 */
class GoJsonReaderOracleProperties {

    private static final List<String> KEYS = List.of("Image", "image", "IMAGE", "HostConfig", "hostconfig", "Privileged",
            "pRiViLeGeD", "ſ", "s", "S", "K", "k", "\\u0048ost", "a\\\"b", "é", "É", "\\ud83d\\ude00", "\\ud800", "\\udc00x",
            "", "x\\/y", "İ", "i", "body", "Env", "\\u0000", "tab\\t", "日本", "😀");
    private static final List<String> STRINGS = List.of("", "plain", "PATH=/usr/bin:/bin", "é", "日本語", "😀", "a\\nb",
            "\\u00e9", "\\ud83d\\ude00", "\\ud83d", "\\ude00", "\\ud83dx", "\\ud83d\\u0041", "\\\\", "\\/", "\\b\\f\\r\\t",
            "nvidia.com/gpu=0", "\\u12", "\\x", "\u007f", "ſ");
    private static final List<String> SCALARS = List.of("0", "-1", "1.5e3", "-0.0E+1", "01", "1.", "-", "1e", "true",
            "false", "null", "nul", "tru", "NaN", "'x'", "1_000");
    private static final List<Byte> DAMAGE = List.of((byte) 0x00, (byte) 0x1f, (byte) 0xff, (byte) 0xc0, (byte) 0xc3,
            (byte) 0xe2, (byte) 0xed, (byte) 0xf4, (byte) 0x80, (byte) '"', (byte) '\\', (byte) '{', (byte) '}', (byte) '[',
            (byte) ',', (byte) ':', (byte) ' ', (byte) 'u');

    @Property(tries = 1000)
    void theReaderAgreesWithItsOracle(@ForAll("bodies") byte[] body) {
        for (Duplicates duplicates : Duplicates.values()) {
            String expected = outcome(() -> GoJsonReaderOracle.read(body, duplicates));
            String actual = outcome(() -> GoJsonReader.read(body, duplicates));
            Statistics.label(duplicates.name()).collect(expected.substring(0, expected.indexOf(' ')));
            assertThat(actual).as("%s on %s", duplicates, new String(body, StandardCharsets.ISO_8859_1)).isEqualTo(expected);
        }
    }

    // Built once and combined, never flatMapped: a flatMap builds (and derives edge cases for) a new
    // arbitrary for every value it draws, which made each try cost about a fifth of a second.
    private final Arbitrary<String> body = value(4);

    @Provide
    Arbitrary<byte[]> bodies() {
        Arbitrary<byte[]> clean = body.map(s -> s.getBytes(StandardCharsets.UTF_8));
        Arbitrary<Integer> at = Arbitraries.integers().between(0, 10_000);
        return Arbitraries.frequencyOf(
                Tuple.of(2, clean),
                Tuple.of(2, Combinators.combine(at, Arbitraries.of(DAMAGE), clean).as((i, b, bytes) -> damage(bytes, i, b))),
                Tuple.of(1, Combinators.combine(at, clean).as((i, bytes) -> cut(bytes, i))));
    }

    private static byte[] damage(byte[] bytes, int at, byte b) {
        if (bytes.length == 0) {
            return bytes;
        }
        byte[] out = bytes.clone();
        out[at % out.length] = b;
        return out;
    }

    private static byte[] cut(byte[] bytes, int at) {
        return java.util.Arrays.copyOf(bytes, bytes.length == 0 ? 0 : at % bytes.length);
    }

    private Arbitrary<String> value(int depth) {
        Arbitrary<String> string = Arbitraries.of(STRINGS).map(s -> "\"" + s + "\"");
        Arbitrary<String> scalar = Arbitraries.oneOf(string, Arbitraries.of(SCALARS));
        if (depth == 0) {
            return scalar;
        }
        Arbitrary<String> inner = value(depth - 1);
        Arbitrary<String> member = Combinators.combine(Arbitraries.of(KEYS), inner).as((k, v) -> "\"" + k + "\" : " + v);
        Arbitrary<String> object = member.list().ofMaxSize(12).map(ms -> "{" + String.join(",", ms) + "}");
        Arbitrary<String> array = inner.list().ofMaxSize(4).map(vs -> "[ " + String.join(", ", vs) + "]");
        return Arbitraries.frequencyOf(Tuple.of(3, scalar), Tuple.of(3, object), Tuple.of(1, array));
    }

    private static String outcome(Supplier<JsonValue> read) {
        try {
            return "read " + dump(read.get());
        } catch (PolicyRefusal refused) {
            return "refused " + refused.refusal();
        }
    }

    /** Every value and key spelled out by code point, so strings that merely print alike differ. */
    private static String dump(JsonValue v) {
        if (v instanceof JsonValue.JsonObject o) {
            StringBuilder out = new StringBuilder("{");
            for (JsonValue.Member m : o.members()) {
                out.append(codePoints(m.key())).append(':').append(dump(m.value())).append(',');
            }
            return out.append('}').toString();
        }
        if (v instanceof JsonValue.JsonArray a) {
            return "[" + String.join(",", a.elements().stream().map(GoJsonReaderOracleProperties::dump).toList()) + "]";
        }
        if (v instanceof JsonValue.JsonString s) {
            return "s" + codePoints(s.value());
        }
        if (v instanceof JsonValue.JsonNumber n) {
            return "n" + n.text();
        }
        return v.describe(); // true, false, null
    }

    private static String codePoints(String s) {
        return s.codePoints().mapToObj(Integer::toHexString).toList().toString();
    }
}
