package io.rediacc.gpu.gate.policy;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;

/**
 * Reads an uploaded tar stream ({@code PUT /containers/{id}/archive}) as it passes, the way the
 * daemon's Go {@code archive/tar} reader will, without buffering it: each 512-byte header is held
 * back until it is complete and judged, entry data passes at once. Refused: character and block
 * device entries (403, rule {@value RefusalMessages#RULE_ARCHIVE_DEVICE}); compressed streams
 * (the daemon would decompress them; the gate does not), sparse entries, bad checksums or numbers, a
 * zero block not followed by a second one, and a stream that ends inside a header or entry (400, rule
 * {@value RefusalMessages#RULE_ARCHIVE_FORMAT}). A legacy entry of type NUL is what Go's reader
 * makes of it: a directory (no data) when its final name (GNU long name, else PAX {@code path}, else
 * prefix and name) ends with '/', else a regular file; both pass. Not thread-safe: one per request.
 */
public final class TarStreamCheck {

    private static final int BLOCK = 512;
    /** Upper bound on a PAX or GNU long-name record the gate reads (the daemon itself allows 1 MiB). */
    private static final long MAX_META = 1 << 20;

    private enum State { HEADER, DATA, META, ZERO, END }

    private State state = State.HEADER;
    private final byte[] block = new byte[BLOCK];
    private int blockFill;
    /** Entry bytes (data plus padding) still to pass in DATA, or to read in META. */
    private long remaining;
    private long metaSize;
    private ByteArrayOutputStream meta;
    private char metaType;
    /** A PAX header's size override for the next entry, -1 when none. */
    private long paxSize = -1;
    /** A PAX header's path for the next entry, null when none. */
    private String paxPath;
    /** A GNU long name (type 'L') for the next entry, null when none; it wins over a PAX path, as in Go. */
    private String gnuLongName;
    private boolean first = true;
    private long offset;

    /**
     * Judges the next bytes of the stream; returns the bytes that may go to the daemon now (held
     * header bytes from earlier calls included). Throws the refusal as a {@link TarRefusal}.
     */
    public byte[] feed(byte[] in) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(in.length + BLOCK);
        int i = 0;
        while (i < in.length) {
            switch (state) {
                case END -> {
                    // After two zero blocks the daemon's reader stops; what follows is never read as entries.
                    out.write(in, i, in.length - i);
                    i = in.length;
                }
                case DATA -> {
                    int n = (int) Math.min(remaining, in.length - i);
                    out.write(in, i, n);
                    i += n;
                    remaining -= n;
                    offset += n;
                    if (remaining == 0) {
                        state = State.HEADER;
                    }
                }
                case META -> {
                    int n = (int) Math.min(remaining, in.length - i);
                    long dataLeft = Math.max(0, metaSize - meta.size());
                    meta.write(in, i, (int) Math.min(n, dataLeft));
                    out.write(in, i, n);
                    i += n;
                    remaining -= n;
                    offset += n;
                    if (remaining == 0) {
                        endMeta();
                        state = State.HEADER;
                    }
                }
                case HEADER, ZERO -> {
                    int n = Math.min(BLOCK - blockFill, in.length - i);
                    System.arraycopy(in, i, block, blockFill, n);
                    blockFill += n;
                    i += n;
                    if (first && blockFill >= 6) {
                        refuseCompressed();
                    }
                    if (blockFill == BLOCK) {
                        blockFill = 0;
                        first = false;
                        header();
                        out.write(block, 0, BLOCK);
                        offset += BLOCK;
                    }
                }
            }
        }
        return out.toByteArray();
    }

    /** The stream ended: refused when it stops inside a header or an entry (the daemon would fail half-way). */
    public void finish() {
        if (first && blockFill > 0 && blockFill < 6) {
            refuseCompressed();
        }
        if (state == State.END || (state == State.HEADER && blockFill == 0)) {
            return;
        }
        throw format("it ends inside " + (state == State.DATA || state == State.META ? "an entry's data" : "a header")
                + " at byte " + (offset + blockFill));
    }

    private void header() {
        if (isZero(block)) {
            if (state == State.ZERO) {
                state = State.END;
            } else {
                state = State.ZERO;
            }
            return;
        }
        if (state == State.ZERO) {
            throw format("a zero block at byte " + (offset - BLOCK) + " is followed by a header (the daemon's reader refuses that)");
        }
        checksum();
        char type = (char) (block[156] & 0xff);
        long size = number(124, 12, "size");
        if (size < 0) {
            throw format("entry at byte " + offset + " has a negative size");
        }
        String name = name();
        switch (type) {
            case '3', '4' -> throw new TarRefusal(new Refusal(403, RefusalMessages.RULE_ARCHIVE_DEVICE, null,
                    RefusalMessages.archiveDevice(name, type == '3' ? "character" : "block",
                            number(329, 8, "devmajor"), number(337, 8, "devminor"))));
            case 'S' -> throw format("entry \"" + name + "\" is a GNU sparse file; upload archives without sparse entries");
            case 'x', 'g', 'L', 'K' -> {
                if (size > MAX_META) {
                    throw format("entry \"" + name + "\" carries a " + size + "-byte extended header (at most " + MAX_META + ")");
                }
                metaType = type;
                metaSize = size;
                meta = new ByteArrayOutputStream((int) size);
                remaining = padded(size);
                state = remaining == 0 ? State.HEADER : State.META;
                if (remaining == 0) {
                    endMeta();
                }
                return;
            }
            default -> {
                // regular files, links, directories, FIFOs and the rest pass
            }
        }
        long nb = paxSize >= 0 ? paxSize : size;
        // Go's reader turns a legacy NUL entry into a directory when its final name ends with '/', else a regular file.
        boolean legacyDirectory = type == '\0' && finalName().endsWith("/");
        paxSize = -1;
        paxPath = null;
        gnuLongName = null;
        // Go's reader: links, symlinks, devices, directories and FIFOs carry no data whatever their size says.
        if (type == '1' || type == '2' || type == '5' || type == '6' || legacyDirectory) {
            nb = 0;
        }
        remaining = padded(nb);
        state = remaining == 0 ? State.HEADER : State.DATA;
    }

    private void endMeta() {
        if (metaType == 'L') {
            byte[] raw = meta.toByteArray();
            int end = 0;
            while (end < raw.length && raw[end] != 0) {
                end++;
            }
            gnuLongName = new String(raw, 0, end, StandardCharsets.UTF_8);
            return;
        }
        if (metaType != 'x' && metaType != 'g') {
            return;
        }
        // Go keeps only the latest PAX header's records for the next entry; a global header ('g') is an entry of
        // its own, after which nothing is pending.
        paxSize = -1;
        paxPath = null;
        if (metaType == 'g') {
            gnuLongName = null;
        }
        byte[] records = meta.toByteArray();
        int at = 0;
        while (at < records.length) {
            int space = at;
            while (space < records.length && records[space] != ' ') {
                space++;
            }
            if (space == at || space == records.length || space - at > 9) {
                throw format("a PAX header record is malformed");
            }
            int length = 0;
            for (int i = at; i < space; i++) {
                if (records[i] < '0' || records[i] > '9') {
                    throw format("a PAX header record has no length");
                }
                length = length * 10 + (records[i] - '0');
            }
            if (length <= space - at + 1 || at + length > records.length || records[at + length - 1] != '\n') {
                throw format("a PAX header record has a wrong length");
            }
            String kv = new String(records, space + 1, at + length - 1 - (space + 1), StandardCharsets.UTF_8);
            at += length;
            int eq = kv.indexOf('=');
            if (eq < 0) {
                throw format("a PAX header record has no '='");
            }
            String key = kv.substring(0, eq);
            String value = kv.substring(eq + 1);
            if (key.startsWith("GNU.sparse.")) {
                throw format("the archive has sparse entries (PAX " + key + "); upload archives without sparse entries");
            }
            if (key.equals("path") && metaType == 'x') {
                paxPath = value;
            }
            if (key.equals("size") && metaType == 'x') {
                try {
                    paxSize = Long.parseLong(value);
                } catch (NumberFormatException e) {
                    throw format("a PAX size record \"" + value + "\" is not a number");
                }
                if (paxSize < 0) {
                    throw format("a PAX size record is negative");
                }
            }
        }
    }

    private void refuseCompressed() {
        String kind = null;
        if ((block[0] & 0xff) == 0x1f && (block[1] & 0xff) == 0x8b && block[2] == 0x08) {
            kind = "gzip";
        } else if (block[0] == 'B' && block[1] == 'Z' && block[2] == 'h') {
            kind = "bzip2";
        } else if ((block[0] & 0xff) == 0xfd && block[1] == '7' && block[2] == 'z' && block[3] == 'X' && block[4] == 'Z' && block[5] == 0) {
            kind = "xz";
        } else if ((block[0] & 0xff) == 0x28 && (block[1] & 0xff) == 0xb5 && (block[2] & 0xff) == 0x2f && (block[3] & 0xff) == 0xfd) {
            kind = "zstd";
        } else if ((block[0] & 0xf0) == 0x50 && (block[1] & 0xff) == 0x2a && (block[2] & 0xff) == 0x4d && (block[3] & 0xff) == 0x18) {
            kind = "zstd (skippable frame)";
        }
        if (kind != null) {
            throw format("it is " + kind + "-compressed; the gate checks plain tar only (docker cp sends plain tar)");
        }
    }

    private void checksum() {
        long stored = number(148, 8, "checksum");
        long unsigned = 0;
        long signed = 0;
        for (int i = 0; i < BLOCK; i++) {
            int b = (i >= 148 && i < 156) ? ' ' : block[i];
            unsigned += b & 0xff;
            signed += (byte) b;
        }
        if (stored != unsigned && stored != signed) {
            throw format("the header at byte " + offset + " has a wrong checksum (not a tar stream, or damaged)");
        }
    }

    /** Go's parseNumeric: base-256 when the high bit is set, else octal with spaces and NULs trimmed. */
    private long number(int at, int length, String field) {
        if ((block[at] & 0x80) != 0) {
            boolean negative = (block[at] & 0x40) != 0;
            if (negative) {
                throw format("the header at byte " + offset + " has a negative " + field);
            }
            long value = block[at] & 0x3f;
            for (int i = 1; i < length; i++) {
                if ((value >>> 55) != 0) {
                    throw format("the header at byte " + offset + " has a " + field + " too large");
                }
                value = (value << 8) | (block[at + i] & 0xff);
            }
            return value;
        }
        int start = at;
        int end = at + length;
        while (start < end && (block[start] == ' ' || block[start] == 0)) {
            start++;
        }
        while (end > start && (block[end - 1] == ' ' || block[end - 1] == 0)) {
            end--;
        }
        if (start == end) {
            return 0;
        }
        long value = 0;
        for (int i = start; i < end; i++) {
            int c = block[i];
            if (c < '0' || c > '7') {
                throw format("the header at byte " + offset + " has an invalid " + field + " field");
            }
            value = value * 8 + (c - '0');
        }
        return value;
    }

    /**
     * The entry's name as Go's reader ends up with it: the GNU long name, else the PAX path, else the
     * header's name behind the ustar/star prefix (offset 345; a prefix makes an empty name end in '/').
     */
    private String finalName() {
        if (gnuLongName != null) {
            return gnuLongName;
        }
        if (paxPath != null) {
            return paxPath;
        }
        String raw = rawName();
        boolean ustar = block[257] == 'u' && block[258] == 's' && block[259] == 't' && block[260] == 'a' && block[261] == 'r'
                && block[262] == 0;
        return ustar && block[345] != 0 ? "prefix/" + raw : raw;
    }

    private String rawName() {
        int end = 0;
        while (end < 100 && block[end] != 0) {
            end++;
        }
        return new String(block, 0, end, StandardCharsets.ISO_8859_1);
    }

    private String name() {
        int end = 0;
        while (end < 100 && block[end] != 0) {
            end++;
        }
        return new String(block, 0, end, StandardCharsets.UTF_8).replaceAll("\\p{Cntrl}", "?");
    }

    private static long padded(long size) {
        return (size + BLOCK - 1) / BLOCK * BLOCK;
    }

    private static boolean isZero(byte[] b) {
        for (byte x : b) {
            if (x != 0) {
                return false;
            }
        }
        return true;
    }

    private static TarRefusal format(String why) {
        return new TarRefusal(new Refusal(400, RefusalMessages.RULE_ARCHIVE_FORMAT, null, RefusalMessages.archiveFormat(why)));
    }

    /** The upload is refused; nothing after the judged bytes may reach the daemon. */
    public static final class TarRefusal extends RuntimeException {
        private final transient Refusal refusal;

        TarRefusal(Refusal refusal) {
            super(refusal.message(), null, false, false);
            this.refusal = refusal;
        }

        public Refusal refusal() {
            return refusal;
        }
    }
}
