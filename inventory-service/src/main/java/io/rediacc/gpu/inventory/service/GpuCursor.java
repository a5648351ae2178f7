package io.rediacc.gpu.inventory.service;

import io.rediacc.gpu.contracts.identity.Identifiers;

import java.nio.charset.StandardCharsets;
import java.util.Base64;

/**
 * A position in the fleet's GPU listing, which is ordered by (machine, GPU index, row id): the
 * last GPU a page returned, and the number of the page that follows it. Opaque to clients: base64url
 * of {@code v1|page|machine|index|id}.
 */
public record GpuCursor(int page, String machine, int gpuIndex, long id) {

    private static final String VERSION = "v1";

    public String encode() {
        String text = VERSION + "|" + page + "|" + machine + "|" + gpuIndex + "|" + id;
        return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    /** Throws {@link IllegalArgumentException} for anything this service did not hand out. */
    public static GpuCursor decode(String cursor) {
        String text = new String(Base64.getUrlDecoder().decode(cursor), StandardCharsets.UTF_8);
        String[] parts = text.split("\\|", -1);
        if (parts.length != 5 || !VERSION.equals(parts[0]) || !Identifiers.isMachine(parts[2])) {
            throw new IllegalArgumentException("not a cursor of this listing");
        }
        int page = Integer.parseInt(parts[1]);
        if (page < 1) {
            throw new IllegalArgumentException("not a cursor of this listing");
        }
        return new GpuCursor(page, parts[2], Integer.parseInt(parts[3]), Long.parseLong(parts[4]));
    }
}
