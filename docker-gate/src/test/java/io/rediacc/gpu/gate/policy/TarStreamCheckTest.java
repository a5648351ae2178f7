package io.rediacc.gpu.gate.policy;

import io.rediacc.gpu.gate.support.TarBuilder;
import org.junit.jupiter.api.Test;

import java.io.ByteArrayOutputStream;
import java.util.Arrays;
import java.util.zip.GZIPOutputStream;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/** The upload check of {@code docker cp} in: what passes is exactly the input, in any chunking; refused entries never pass. */
class TarStreamCheckTest {

    /** Feeds {@code tar} in chunks of {@code chunk} bytes; returns what the check released. */
    private static byte[] stream(byte[] tar, int chunk) {
        TarStreamCheck check = new TarStreamCheck();
        ByteArrayOutputStream passed = new ByteArrayOutputStream();
        for (int i = 0; i < tar.length; i += chunk) {
            passed.writeBytes(check.feed(Arrays.copyOfRange(tar, i, Math.min(tar.length, i + chunk))));
        }
        check.finish();
        return passed.toByteArray();
    }

    private static Refusal refusal(byte[] tar, int chunk) {
        try {
            stream(tar, chunk);
        } catch (TarStreamCheck.TarRefusal refused) {
            return refused.refusal();
        }
        throw new AssertionError("not refused");
    }

    @Test
    void plainArchivesPassUnchangedInEveryChunking() {
        byte[] tar = new TarBuilder().directory("d/").file("d/a", "hello\n").file("d/b", "x".repeat(1500))
                .pax("path", "d/long-name").file("ignored", "pax named\n").header("d/link", '2', 99, 0, 0).build();
        for (int chunk : new int[] {1, 7, 511, 512, 513, 4096, tar.length}) {
            assertThat(stream(tar, chunk)).as("chunk %d", chunk).isEqualTo(tar);
        }
    }

    @Test
    void deviceEntriesAreRefused403AndNeverReleased() {
        byte[] before = new TarBuilder().file("ok", "fine\n").unterminated();
        byte[] tar = new TarBuilder().file("ok", "fine\n").charDevice("nvidia0", 195, 0).build();
        Refusal chr = refusal(tar, 100);
        assertThat(chr.status()).isEqualTo(403);
        assertThat(chr.rule()).isEqualTo(RefusalMessages.RULE_ARCHIVE_DEVICE);
        assertThat(chr.message()).contains("character device entry \"nvidia0\" (195:0)").contains("--device nvidia.com/gpu=");
        assertThat(refusal(new TarBuilder().blockDevice("sda", 8, 0).build(), 512).message()).contains("block device");

        TarStreamCheck check = new TarStreamCheck();
        byte[] released = check.feed(Arrays.copyOf(tar, before.length + 511));
        assertThat(released).as("the entry before passes; the device header is held until judged").isEqualTo(before);
        assertThatThrownBy(() -> check.feed(new byte[] {tar[before.length + 511]})).isInstanceOf(TarStreamCheck.TarRefusal.class);
    }

    @Test
    void aPaxSizeIsHonouredSoADeviceCannotHideInData() {
        // The header says 0 bytes; PAX says 1024: the device header sits inside the file's data and is never a header.
        byte[] device = new TarBuilder().charDevice("inside", 1, 3).unterminated();
        byte[] data = Arrays.copyOf(device, 1024);
        byte[] tar = new TarBuilder().pax("size", "1024").header("f", '0', 0, 0, 0).data(data).build();
        assertThat(stream(tar, 300)).isEqualTo(tar);
        // and a header whose size hides a device the daemon would read as a header is refused
        byte[] hidden = new TarBuilder().pax("size", "0").header("f", '0', 1024, 0, 0).data(data).build();
        assertThat(refusal(hidden, 512).rule()).isEqualTo(RefusalMessages.RULE_ARCHIVE_DEVICE);
    }

    @Test
    void compressedSparseAndMalformedArchivesAre400() throws Exception {
        ByteArrayOutputStream gz = new ByteArrayOutputStream();
        try (GZIPOutputStream zip = new GZIPOutputStream(gz)) {
            zip.write(new TarBuilder().charDevice("nvidia0", 195, 0).build());
        }
        assertThat(refusal(gz.toByteArray(), 64).message()).contains("gzip-compressed");
        assertThat(refusal(new byte[] {'B', 'Z', 'h', '9', '1', 'A', 'Y'}, 3).message()).contains("bzip2");
        assertThat(refusal(new TarBuilder().header("s", 'S', 0, 0, 0).build(), 512).message()).contains("sparse");
        assertThat(refusal(new TarBuilder().pax("GNU.sparse.map", "0,0").file("f", "x").build(), 512).message()).contains("sparse");
        byte[] broken = new TarBuilder().file("f", "x").build();
        broken[10] ^= 1;
        assertThat(refusal(broken, 512).message()).contains("checksum");
        byte[] cut = new TarBuilder().file("f", "x".repeat(600)).unterminated();
        assertThat(refusal(Arrays.copyOf(cut, 700), 512).message()).contains("ends inside an entry");
        assertThat(stream(cut, 512)).as("an archive without its end passes, as Go reads it").isEqualTo(cut);
        byte[] zeroThenHeader = new TarBuilder().data(new byte[1]).file("f", "x").build();
        assertThat(refusal(zeroThenHeader, 512).message()).contains("zero block");
        for (Refusal r : new Refusal[] {refusal(broken, 1), refusal(Arrays.copyOf(cut, 700), 100)}) {
            assertThat(r.status()).isEqualTo(400);
            assertThat(r.rule()).isEqualTo(RefusalMessages.RULE_ARCHIVE_FORMAT);
        }
    }

    /** A GNU long-name entry ('L', GNU magic as GNU tar writes it) naming the next entry. */
    private static byte[] gnuLongName(String name) {
        byte[] data = (name + "\0").getBytes(java.nio.charset.StandardCharsets.UTF_8);
        byte[] tar = new TarBuilder().header("././@LongLink", 'L', data.length, 0, 0).data(data).unterminated();
        return tar;
    }

    @Test
    void aLegacyNulEntryIsARegularFileWithItsDataOrADirectoryWithoutAsGoReadsIt() {
        byte[] device = new TarBuilder().charDevice("inside", 195, 0).unterminated();
        byte[] data = Arrays.copyOf(device, 1024);
        // a regular file: its 1024 bytes are data, the device header inside them is never a header
        byte[] file = new TarBuilder().header("legacy", '\0', 1024, 0, 0).data(data).build();
        assertThat(stream(file, 100)).isEqualTo(file);
        // a name ending in '/' makes it a directory: Go reads no data, so what follows is the next header
        for (byte[] dir : new byte[][] {
                new TarBuilder().header("legacy-dir/", '\0', 1024, 0, 0).data(data).build(),
                concat(new TarBuilder().pax("path", "long/dir/").unterminated(),
                        new TarBuilder().header("legacy", '\0', 1024, 0, 0).data(data).build()),
                concat(gnuLongName("gnu/dir/"), new TarBuilder().header("legacy", '\0', 1024, 0, 0).data(data).build())}) {
            Refusal r = refusal(dir, 512);
            assertThat(r.rule()).isEqualTo(RefusalMessages.RULE_ARCHIVE_DEVICE);
            assertThat(r.message()).contains("\"inside\"");
        }
        // the GNU long name wins over a PAX path, as in Go: a file, its data passes
        byte[] gnuWins = concat(new TarBuilder().pax("path", "pax/dir/").unterminated(),
                concat(gnuLongName("gnu-file"), new TarBuilder().header("legacy/", '\0', 1024, 0, 0).data(data).build()));
        assertThat(stream(gnuWins, 512)).isEqualTo(gnuWins);
        // a later PAX header replaces an earlier one's path: a file again
        byte[] replaced = concat(new TarBuilder().pax("path", "dir/").pax("mtime", "1").unterminated(),
                new TarBuilder().header("legacy", '\0', 1024, 0, 0).data(data).build());
        assertThat(stream(replaced, 512)).isEqualTo(replaced);
    }

    private static byte[] concat(byte[] a, byte[] b) {
        byte[] out = Arrays.copyOf(a, a.length + b.length);
        System.arraycopy(b, 0, out, a.length, b.length);
        return out;
    }
}
