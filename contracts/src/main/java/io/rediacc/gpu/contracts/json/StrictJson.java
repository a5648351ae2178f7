package io.rediacc.gpu.contracts.json;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.io.IOContext;
import com.fasterxml.jackson.core.io.InputDecorator;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.type.LogicalType;
import io.rediacc.gpu.contracts.events.EventJson;

import java.io.DataInput;
import java.io.IOException;
import java.io.InputStream;
import java.io.PushbackInputStream;
import java.io.PushbackReader;
import java.io.Reader;
import java.io.UncheckedIOException;

/**
 * The one strict JSON reader of signed Kafka values and REST bodies: a text reads here only as the
 * schema and every other reader ({@code jq}, a JSON Schema validator) read it too. Refused: content
 * after the value ({@code {…}{…}}), a key twice in one object (Jackson would keep the last, {@code jq}
 * the last, another reader the first), a byte order mark or any encoding but UTF-8 (RFC 8259 §8.1),
 * scalars of the wrong JSON type ({@code "exclusive": 1}, {@code "version": "3"}, {@code 1.5} as an
 * integer, {@code 7} as a string) and null or missing primitives. Whether an unknown property is
 * refused is the caller's contract: events ignore it (producers add fields), REST bodies refuse it.
 * The Docker API gate's body parser is not this one: it reads bodies the way the Docker daemon does.
 */
public final class StrictJson {

    private static final ObjectMapper EVENTS = configure(EventJson.configure(new ObjectMapper()));

    private StrictJson() {
    }

    /**
     * Applies the strict reading rules to a mapper (the services pass their managed one); leaves
     * writing and {@link DeserializationFeature#FAIL_ON_UNKNOWN_PROPERTIES} as they are.
     */
    @SuppressWarnings("deprecation") // MapperFeature on a built mapper: the services' mapper is built by Quarkus
    public static ObjectMapper configure(ObjectMapper mapper) {
        mapper.getFactory().enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
        mapper.getFactory().setInputDecorator(new Utf8Only());
        mapper.enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .enable(DeserializationFeature.FAIL_ON_READING_DUP_TREE_KEY)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS);
        mapper.coercionConfigFor(LogicalType.Integer).setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        mapper.coercionConfigFor(LogicalType.Float).setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        mapper.coercionConfigFor(LogicalType.Boolean).setCoercion(CoercionInputShape.String, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail);
        mapper.coercionConfigFor(LogicalType.Textual).setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        return mapper;
    }

    /**
     * A service's REST body mapper: the events' conventions ({@link EventJson#configure}), these strict
     * rules, and an unknown field refused — a misspelt {@code "exclusiv": true} silently ignored would
     * grant a shared device where an exclusive one was meant.
     */
    public static ObjectMapper configureRestBodies(ObjectMapper mapper) {
        return configure(EventJson.configure(mapper)).enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);
    }

    /** The mapper of signed Kafka values: the events' conventions (unknown fields ignored) read strictly. */
    public static ObjectMapper events() {
        return EVENTS;
    }

    /**
     * A Kafka value as {@code type}, read strictly; {@link UncheckedIOException} naming what is wrong
     * when it is not one (the consumer drops and counts it).
     */
    public static <T> T readEvent(byte[] json, Class<T> type) {
        try {
            return EVENTS.readValue(json, type);
        } catch (IOException e) {
            throw new UncheckedIOException("not a valid " + type.getSimpleName() + ": " + e.getMessage(), e);
        }
    }

    /**
     * Refuses a byte order mark and the UTF-16/UTF-32 encodings Jackson would otherwise detect and
     * read: a JSON text between systems is UTF-8 without a BOM (RFC 8259 §8.1), and {@code jq} or a
     * schema validator reading the same bytes would fail on them.
     */
    static final class Utf8Only extends InputDecorator {

        private static final long serialVersionUID = 1L;

        @Override
        public InputStream decorate(IOContext ctxt, InputStream in) throws IOException {
            PushbackInputStream peek = new PushbackInputStream(in, 4);
            byte[] head = new byte[4];
            int n = 0;
            while (n < head.length) {
                int r = peek.read(head, n, head.length - n);
                if (r < 0) {
                    break;
                }
                n += r;
            }
            check(head, 0, n);
            peek.unread(head, 0, n);
            return peek;
        }

        @Override
        public InputStream decorate(IOContext ctxt, byte[] src, int offset, int length) throws IOException {
            check(src, offset, Math.min(length, 4));
            return null; // read the array as it is
        }

        @Override
        public DataInput decorate(IOContext ctxt, DataInput input) {
            return input;
        }

        @Override
        public Reader decorate(IOContext ctxt, Reader r) throws IOException {
            // already characters: only the BOM can still be there
            PushbackReader peek = new PushbackReader(r, 1);
            int c = peek.read();
            if (c == 0xFEFF) {
                throw refused("the text starts with a byte order mark (U+FEFF); send JSON without one");
            }
            if (c >= 0) {
                peek.unread(c);
            }
            return peek;
        }

        static void check(byte[] b, int offset, int n) throws IOException {
            if (n >= 3 && (b[offset] & 0xff) == 0xEF && (b[offset + 1] & 0xff) == 0xBB && (b[offset + 2] & 0xff) == 0xBF) {
                throw refused("the text starts with a UTF-8 byte order mark (EF BB BF); send UTF-8 JSON without one");
            }
            if (n >= 2 && ((b[offset] & 0xff) == 0xFE && (b[offset + 1] & 0xff) == 0xFF
                    || (b[offset] & 0xff) == 0xFF && (b[offset + 1] & 0xff) == 0xFE)) {
                throw refused("the text starts with a UTF-16 byte order mark; send UTF-8 JSON without one");
            }
            for (int i = 0; i < n; i++) {
                if (b[offset + i] == 0) { // UTF-16/32 (JSON text has no NUL byte in UTF-8)
                    throw refused("the text is not UTF-8 (a NUL byte at offset " + i + "): send UTF-8 JSON");
                }
            }
        }

        private static JsonParseException refused(String why) {
            return new JsonParseException((JsonParser) null, why);
        }
    }
}
