package io.rediacc.gpu.gate.policy;

import io.rediacc.gpu.gate.policy.JsonValue.JsonArray;
import io.rediacc.gpu.gate.policy.JsonValue.JsonObject;
import io.rediacc.gpu.gate.policy.JsonValue.JsonString;

/**
 * What the rules judge of an existing volume: its {@code Driver} and {@code Options} as the daemon's
 * {@code GET /volumes/{name}} answer gives them, read the way the daemon wrote them. The read is the
 * same for every request, the verdict is not (the repo's rules of the moment): so a kept answer keeps
 * this read beside it ({@link VolumeAnswers}), and each create judges it without parsing the answer
 * again (a tenth of the gate's CPU per create that mounts a named volume, issue 34).
 *
 * <p>A reader-built {@link JsonObject} is not changed after it is read, so one read may be judged on
 * several event loops at once.
 */
public record VolumeBacking(String driver, JsonValue options) {

    /** Reads a 200 answer; throws the 400 {@link PolicyRefusal} that names what the answer lacks. */
    static VolumeBacking read(String volume, byte[] answer) {
        JsonValue json = GoJsonReader.read(answer, GoJsonReader.Duplicates.REFUSE_EXACT);
        if (!(json instanceof JsonObject v)) {
            throw PolicyRefusal.badRequest(RefusalMessages.RULE_VOLUME_UNREADABLE, new RefusalText("the daemon's answer is "
                    + json.describe(), "retry once the Docker daemon answers GET /volumes/" + volume + " with a volume"));
        }
        return new VolumeBacking(GoJsonTypes.string(v.field("Driver", "Driver"), "Driver"), v.field("Options", "Options"));
    }

    /** {@link #read}, or null when the answer cannot be read: it is then judged (and refused) from its bytes each time. */
    static VolumeBacking readOrNull(String volume, byte[] answer) {
        try {
            return read(volume, answer);
        } catch (RuntimeException unreadable) {
            return null;
        }
    }

    /**
     * Bytes of heap this read holds, over-estimated (a 64-bit JVM's object headers, two bytes a character),
     * so the bound on what {@link VolumeAnswers} keeps stays a bound on memory.
     */
    int footprint() {
        return 32 + chars(driver) + footprint(options);
    }

    private static int footprint(JsonValue value) {
        if (value instanceof JsonObject o) {
            int bytes = 96;
            for (JsonValue.Member m : o.members()) {
                bytes += 64 + chars(m.key()) + footprint(m.value());
            }
            return bytes;
        }
        if (value instanceof JsonArray a) {
            int bytes = 48;
            for (JsonValue e : a.elements()) {
                bytes += 8 + footprint(e);
            }
            return bytes;
        }
        if (value instanceof JsonString s) {
            return 16 + chars(s.value());
        }
        return value == null ? 0 : 48;
    }

    private static int chars(String s) {
        return s == null ? 0 : 48 + 2 * s.length();
    }
}
