package io.rediacc.gpu.gate.support;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/** Writes ustar archives byte by byte, including entries no tar program writes without root (device nodes). */
public final class TarBuilder {

    private final ByteArrayOutputStream out = new ByteArrayOutputStream();

    public TarBuilder file(String name, String content) {
        byte[] data = content.getBytes(StandardCharsets.UTF_8);
        header(name, '0', data.length, 0, 0);
        data(data);
        return this;
    }

    public TarBuilder directory(String name) {
        return header(name, '5', 0, 0, 0);
    }

    public TarBuilder charDevice(String name, int major, int minor) {
        return header(name, '3', 0, major, minor);
    }

    public TarBuilder blockDevice(String name, int major, int minor) {
        return header(name, '4', 0, major, minor);
    }

    /** A PAX extended header applying to the next entry. */
    public TarBuilder pax(String key, String value) {
        String body = key + "=" + value + "\n";
        int length = body.length() + 3;
        while (String.valueOf(length).length() + 1 + body.length() != length) {
            length++;
        }
        byte[] record = (length + " " + body).getBytes(StandardCharsets.UTF_8);
        header("PaxHeaders/x", 'x', record.length, 0, 0);
        data(record);
        return this;
    }

    /** A header with any type flag and size; no data follows (write it with {@link #data}). */
    public TarBuilder header(String name, char type, long size, int major, int minor) {
        byte[] h = new byte[512];
        put(h, 0, name, 100);
        put(h, 100, "0000644", 8);
        put(h, 108, "0000000", 8);
        put(h, 116, "0000000", 8);
        put(h, 124, String.format("%011o", size), 12);
        put(h, 136, "00000000000", 12);
        h[156] = (byte) type;
        put(h, 257, "ustar", 6);
        h[263] = '0';
        h[264] = '0';
        put(h, 329, String.format("%07o", major), 8);
        put(h, 337, String.format("%07o", minor), 8);
        for (int i = 148; i < 156; i++) {
            h[i] = ' ';
        }
        int sum = 0;
        for (byte b : h) {
            sum += b & 0xff;
        }
        put(h, 148, String.format("%06o", sum), 7);
        out.writeBytes(h);
        return this;
    }

    /** Entry data, padded to a 512-byte block. */
    public TarBuilder data(byte[] data) {
        out.writeBytes(data);
        int pad = (512 - data.length % 512) % 512;
        out.writeBytes(new byte[pad]);
        return this;
    }

    /** The archive with its end (two zero blocks). */
    public byte[] build() {
        ByteArrayOutputStream copy = new ByteArrayOutputStream();
        copy.writeBytes(out.toByteArray());
        copy.writeBytes(new byte[1024]);
        return copy.toByteArray();
    }

    /** The archive so far, without its end. */
    public byte[] unterminated() {
        return out.toByteArray();
    }

    private static void put(byte[] h, int at, String s, int max) {
        byte[] b = s.getBytes(StandardCharsets.UTF_8);
        System.arraycopy(b, 0, h, at, Math.min(b.length, max));
    }
}
