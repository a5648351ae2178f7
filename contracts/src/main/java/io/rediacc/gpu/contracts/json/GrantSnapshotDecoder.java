package io.rediacc.gpu.contracts.json;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.ObjectReader;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.rediacc.gpu.contracts.events.EventJson;
import io.rediacc.gpu.contracts.events.Grant;
import io.rediacc.gpu.contracts.events.GrantSnapshot;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads a {@link GrantSnapshot} grant by grant (the gate from the topic and its state file, node-agent from that file), keeping one instance of each repeated value as it goes.
 * Decoding the whole snapshot first ({@link EventJson#fromBytes}) held every grant with its own Strings
 * next to the file's bytes: ~55 MB at 100,000 grants, which set the gate's heap size. Streaming from
 * the file and sharing each grant's values at once keeps the peak near what the store holds (~25 MB).
 * Every member but {@code grants} goes through the same data binding as {@link StrictJson#events()}, so a
 * snapshot reads here exactly as it reads there (a test holds both to the same result): a key twice,
 * content after the snapshot, a BOM or a coerced scalar are refused here too.
 */
public final class GrantSnapshotDecoder {

    private static final ObjectMapper MAPPER = StrictJson.events();
    /** For the members read one by one: what follows a member is the rest of the snapshot, not trailing content. */
    private static final ObjectReader MEMBER = MAPPER.reader().without(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);
    private static final ObjectReader GRANT = MEMBER.forType(Grant.class);

    private GrantSnapshotDecoder() {
    }

    public static GrantSnapshot read(InputStream in) throws IOException {
        try (JsonParser parser = MAPPER.createParser(in)) {
            return read(parser);
        }
    }

    public static GrantSnapshot read(byte[] json) {
        try (JsonParser parser = MAPPER.createParser(json)) {
            return read(parser);
        } catch (IOException e) {
            throw new UncheckedIOException("not a valid GrantSnapshot: " + e.getMessage(), e);
        }
    }

    private static GrantSnapshot read(JsonParser parser) throws IOException {
        if (parser.nextToken() != JsonToken.START_OBJECT) {
            // not an object: let data binding refuse it with its own message
            return MAPPER.readValue(parser, GrantSnapshot.class);
        }
        ObjectNode rest = MAPPER.createObjectNode();
        List<Grant> grants = null;
        Map<Object, Object> seen = new HashMap<>();
        for (JsonToken t = parser.nextToken(); t == JsonToken.FIELD_NAME; t = parser.nextToken()) {
            String name = parser.currentName();
            JsonToken value = parser.nextToken();
            if ("grants".equals(name) && value == JsonToken.START_ARRAY) {
                grants = new ArrayList<>();
                rest.remove(name);
                while (parser.nextToken() != JsonToken.END_ARRAY) {
                    Grant grant = GRANT.readValue(parser);
                    if (grant == null) { // GrantSnapshot's List.copyOf refuses it; data binding reports that as unreadable
                        throw new IOException("a null grant in the snapshot's grants");
                    }
                    grants.add(shared(seen, grant));
                }
            } else {
                // a member twice never gets here: the parser refuses the second (strict duplicate detection)
                rest.set(name, MEMBER.readTree(parser));
            }
        }
        if (parser.nextToken() != null) { // what FAIL_ON_TRAILING_TOKENS refuses in data binding
            throw new IOException("Trailing token (of type " + parser.currentToken() + ") found after the grant snapshot");
        }
        GrantSnapshot head;
        try {
            head = MAPPER.treeToValue(rest, GrantSnapshot.class);
        } catch (IllegalArgumentException e) { // what readValue reports as an IOException
            throw new IOException(e.getMessage(), e);
        }
        return grants == null ? head : new GrantSnapshot(head.machine(), head.version(), head.updatedAt(), grants);
    }

    /** The grant with the instance of each value first seen in {@code seen}; itself when it holds those already. */
    public static Grant shared(Map<Object, Object> seen, Grant g) {
        String guid = shared(seen, g.repoGuid());
        String name = shared(seen, g.repoName());
        String device = shared(seen, g.device());
        String by = shared(seen, g.grantedBy());
        java.time.Instant at = shared(seen, g.grantedAt());
        if (guid == g.repoGuid() && name == g.repoName() && device == g.device() && by == g.grantedBy()
                && at == g.grantedAt()) {
            return g;
        }
        return new Grant(guid, name, device, g.exclusive(), by, at);
    }

    @SuppressWarnings("unchecked")
    private static <T> T shared(Map<Object, Object> seen, T value) {
        return value == null ? null : (T) seen.computeIfAbsent(value, v -> v);
    }
}
