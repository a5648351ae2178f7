package io.rediacc.gpu.inventory.service;

import com.fasterxml.jackson.databind.JsonNode;
import io.rediacc.gpu.contracts.events.EventJson;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.HexFormat;

/**
 * The inventory "as stored on the machine": {@code /etc/rediacc/gpu/inventory.json} exactly as
 * setup wrote it, which node-agent carries in the published record's {@code setupFile.content}
 * with its SHA-256. When the record carries no such content (an agent before it, setup never run,
 * a file over the size limit), or the content does not match its digest, the record itself is
 * the answer, as published.
 */
final class SetupFileBytes {

    private SetupFileBytes() {
    }

    static String of(String publishedJson) {
        JsonNode file;
        try {
            file = EventJson.mapper().readTree(publishedJson).path("setupFile");
        } catch (Exception e) {
            return publishedJson; // stored as published; never fail the read over it
        }
        JsonNode content = file.path("content");
        if (!content.isTextual() || !file.path("sha256").isTextual()) {
            return publishedJson;
        }
        String text = content.textValue();
        return sha256(text.getBytes(StandardCharsets.UTF_8)).equals(file.path("sha256").textValue()) ? text : publishedJson;
    }

    static String sha256(byte[] bytes) {
        try {
            return HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(bytes));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JVM", e);
        }
    }
}
