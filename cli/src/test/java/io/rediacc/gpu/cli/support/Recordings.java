package io.rediacc.gpu.cli.support;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** The services' answers recorded in {@code src/test/resources/recorded/<service>/}. */
public final class Recordings {

    private Recordings() {
    }

    public static String read(String service, String file) {
        String resource = "/recorded/" + service + "/" + file;
        try (InputStream in = Recordings.class.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IllegalArgumentException("no recording " + resource);
            }
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
