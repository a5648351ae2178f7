package io.rediacc.gpu.gate.proxy;

import io.netty.buffer.ByteBuf;
import io.netty.handler.codec.http.HttpChunkedInput;
import io.netty.handler.stream.ChunkedNioFile;
import io.rediacc.gpu.gate.policy.Refusal;
import io.rediacc.gpu.gate.policy.RefusalMessages;
import io.rediacc.gpu.gate.policy.TarStreamCheck;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A {@code docker cp} upload held on disk until the whole archive is judged
 * ({@link TarStreamCheck}): the daemon unpacks entries as they arrive, so an archive refused at its
 * tenth entry must not have sent the nine before it. Only a fully judged archive is forwarded, from
 * this spool; a refused or too-large one ({@code maxBytes}, 413) reaches the daemon not at all. The
 * file is unlinked as soon as it is opened: nothing is left behind, not even after a crash.
 */
final class UploadSpool implements AutoCloseable {

    private static final int CHUNK = 64 * 1024;

    private final FileChannel file;
    private final long maxBytes;
    private final TarStreamCheck tar = new TarStreamCheck();
    private long received;
    private long size;

    private UploadSpool(FileChannel file, long maxBytes) {
        this.file = file;
        this.maxBytes = maxBytes;
    }

    static UploadSpool open(long maxBytes) throws IOException {
        Path path = Files.createTempFile("rediacc-gate-upload-", ".tar"); // 0600, in java.io.tmpdir
        FileChannel channel = FileChannel.open(path, StandardOpenOption.READ, StandardOpenOption.WRITE);
        Files.delete(path);
        return new UploadSpool(channel, maxBytes);
    }

    /** Judges and keeps the next bytes of the upload; the refusal when the archive is refused or too large, else null. */
    Refusal append(ByteBuf data) throws IOException {
        received += data.readableBytes();
        if (received > maxBytes) {
            return RefusalMessages.uploadTooLarge(maxBytes);
        }
        byte[] in = new byte[data.readableBytes()];
        data.getBytes(data.readerIndex(), in);
        byte[] passed;
        try {
            passed = tar.feed(in);
        } catch (TarStreamCheck.TarRefusal refused) {
            return refused.refusal();
        }
        ByteBuffer out = ByteBuffer.wrap(passed);
        while (out.hasRemaining()) {
            size += file.write(out, size);
        }
        return null;
    }

    /** The upload ended: its refusal when it stops inside a header or entry, else null. */
    Refusal finish() {
        try {
            tar.finish();
            return null;
        } catch (TarStreamCheck.TarRefusal refused) {
            return refused.refusal();
        }
    }

    /** Bytes the judged archive holds (its Content-Length to the daemon). */
    long size() {
        return size;
    }

    /** The judged archive as HTTP content for the daemon, read in chunks as the daemon takes them; it closes the spool. */
    HttpChunkedInput body() throws IOException {
        return new HttpChunkedInput(new ChunkedNioFile(file, 0, size, CHUNK));
    }

    @Override
    public void close() {
        try {
            file.close();
        } catch (IOException ignored) {
            // unlinked already: closing only frees the space
        }
    }
}
