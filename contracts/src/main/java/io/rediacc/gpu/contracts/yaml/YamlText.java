package io.rediacc.gpu.contracts.yaml;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.core.util.JsonParserDelegate;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import com.fasterxml.jackson.dataformat.yaml.YAMLGenerator;
import com.fasterxml.jackson.dataformat.yaml.YAMLMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLParser;
import org.yaml.snakeyaml.LoaderOptions;

import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * The product's one way to read and write YAML (Jackson's YAML format, over SnakeYAML's parser): the
 * repos manifest, CDI specs, rdc's config file and {@code -o yaml}, the specs node-agent writes.
 * Reading is strict: a key given twice and an alias ({@code *name}) are errors, where Jackson alone
 * would keep the last key and read an alias as the text of its name.
 */
public final class YamlText {

    /** How lists are laid out in written YAML. */
    public enum Lists {
        /** {@code key:\n- item} (rdc's {@code -o yaml}). */
        FLUSH,
        /** {@code key:\n  - item}, as nvidia-ctk and the CDI examples write spec files. */
        INDENTED
    }

    /** The longest document read: a CDI spec's bound (4 MiB); the manifest and rdc's config are far smaller. */
    public static final int MAX_CODE_POINTS = 4 * 1024 * 1024;

    private YamlText() {
    }

    /** Made on first use: rdc's tables and {@code -o json} load no YAML classes. */
    private static final class Reader {
        static final YAMLMapper MAPPER = YAMLMapper.builder(YAMLFactory.builder().loaderOptions(loaderOptions()).build())
                .enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION).build();

        private static LoaderOptions loaderOptions() {
            LoaderOptions options = new LoaderOptions();
            options.setAllowDuplicateKeys(false);
            options.setCodePointLimit(MAX_CODE_POINTS);
            return options;
        }
    }

    private static final class Writers {
        static final ObjectMapper FLUSH = writer(false);
        static final ObjectMapper INDENTED = writer(true);

        private static ObjectMapper writer(boolean indentLists) {
            YAMLFactory factory = YAMLFactory.builder()
                    .disable(YAMLGenerator.Feature.WRITE_DOC_START_MARKER)
                    .enable(YAMLGenerator.Feature.MINIMIZE_QUOTES)
                    .enable(YAMLGenerator.Feature.ALWAYS_QUOTE_NUMBERS_AS_STRINGS)
                    .configure(YAMLGenerator.Feature.INDENT_ARRAYS_WITH_INDICATOR, indentLists)
                    .stringQuotingChecker(new YamlSafeQuoting())
                    .build();
            return new ObjectMapper(factory);
        }
    }

    /** One YAML document as a tree; {@code null} for an empty document. */
    public static JsonNode readTree(byte[] yaml) throws IOException {
        try (JsonParser parser = new NoAliases(Reader.MAPPER.createParser(yaml))) {
            return Reader.MAPPER.readTree(parser);
        }
    }

    /**
     * One YAML document as maps, lists, strings, numbers ({@code Integer}, {@code Long}, {@code BigInteger},
     * {@code Double}) and booleans; {@code null} for an empty document.
     */
    public static Object read(byte[] yaml) throws IOException {
        try (JsonParser parser = new NoAliases(Reader.MAPPER.createParser(yaml))) {
            return parser.nextToken() == null ? null : Reader.MAPPER.readValue(parser, Object.class);
        }
    }

    /** As {@link #read(byte[])}, from text. */
    public static Object read(String yaml) throws IOException {
        return read(yaml.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * {@code tree} (a {@link JsonNode}, or maps and lists) as YAML that YAML 1.1 readers (PyYAML's
     * {@code safe_load}, SnakeYAML) and YAML 1.2 readers (Go's) load back to the same tree: every string
     * either would read as something else is quoted.
     */
    public static String write(Object tree, Lists lists) {
        try {
            return (lists == Lists.INDENTED ? Writers.INDENTED : Writers.FLUSH).writeValueAsString(tree);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write YAML: " + e.getOriginalMessage(), e);
        }
    }

    /** Refuses an alias where Jackson would hand on the alias's name as if it were the value. */
    private static final class NoAliases extends JsonParserDelegate {

        NoAliases(JsonParser parser) {
            super(parser);
        }

        @Override
        public JsonToken nextToken() throws IOException {
            return refuseAlias(super.nextToken());
        }

        @Override
        public JsonToken nextValue() throws IOException {
            return refuseAlias(super.nextValue());
        }

        @Override
        public String nextFieldName() throws IOException {
            String name = super.nextFieldName();
            refuseAlias(currentToken());
            return name;
        }

        private JsonToken refuseAlias(JsonToken token) throws IOException {
            if (delegate() instanceof YAMLParser yaml && yaml.isCurrentAlias()) {
                throw new YamlAliasException(this, "alias *" + yaml.getText() + " at line "
                        + yaml.currentLocation().getLineNr() + ": aliases are not supported; write the value out");
            }
            return token;
        }
    }

    /** An alias in a document read here. */
    public static final class YamlAliasException extends com.fasterxml.jackson.core.JsonParseException {
        private static final long serialVersionUID = 1L;

        YamlAliasException(JsonParser parser, String message) {
            super(parser, message);
        }
    }
}
