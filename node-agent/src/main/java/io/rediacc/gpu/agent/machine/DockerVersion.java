package io.rediacc.gpu.agent.machine;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.SocketAddress;
import java.net.StandardProtocolFamily;
import java.net.URI;
import java.net.UnixDomainSocketAddress;
import java.nio.ByteBuffer;
import java.nio.channels.SocketChannel;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A Docker engine's version, as its {@code GET /version} says ({@code "Version": "28.2.2"}). */
public record DockerVersion(int major, int minor, String text) {

    private static final Pattern VERSION = Pattern.compile("^(\\d+)\\.(\\d+)");
    private static final ObjectMapper JSON = new ObjectMapper();

    public static Optional<DockerVersion> parse(String text) {
        Matcher m = text == null ? null : VERSION.matcher(text.strip());
        return m != null && m.find() ? Optional.of(new DockerVersion(Integer.parseInt(m.group(1)), Integer.parseInt(m.group(2)), text.strip()))
                : Optional.empty();
    }

    private static final Pattern CONTENT_LENGTH = Pattern.compile("(?im)^content-length:\\s*(\\d+)\\s*$");

    /** True when the bytes so far hold the head and a Content-Length body in full. */
    static boolean complete(String soFar) {
        int split = soFar.indexOf("\r\n\r\n");
        if (split < 0) {
            return false;
        }
        Matcher m = CONTENT_LENGTH.matcher(soFar.substring(0, split));
        return m.find() && soFar.length() - split - 4 >= Integer.parseInt(m.group(1));
    }

    public boolean before(int major, int minor) {
        return this.major < major || (this.major == major && this.minor < minor);
    }

    /**
     * Asks the daemon at {@code endpoint} ({@code unix:///path.sock} or {@code tcp://host:port},
     * the manifest's {@code daemon}) for its version: HTTP/1.0, so the daemon closes when done.
     */
    public static DockerVersion query(String endpoint, Duration timeout) throws IOException {
        URI uri = URI.create(endpoint);
        SocketAddress address;
        SocketChannel channel;
        if ("unix".equals(uri.getScheme())) {
            address = UnixDomainSocketAddress.of(uri.getPath());
            channel = SocketChannel.open(StandardProtocolFamily.UNIX);
        } else if ("tcp".equals(uri.getScheme())) {
            address = new InetSocketAddress(uri.getHost(), uri.getPort());
            channel = SocketChannel.open();
        } else {
            throw new IOException("daemon address " + endpoint + " is neither unix:// nor tcp://");
        }
        CompletableFuture<String> body = CompletableFuture.supplyAsync(() -> {
            try (channel) {
                channel.connect(address);
                channel.write(ByteBuffer.wrap("GET /version HTTP/1.0\r\nHost: docker\r\nConnection: close\r\n\r\n".getBytes(StandardCharsets.US_ASCII)));
                ByteArrayOutputStream all = new ByteArrayOutputStream();
                ByteBuffer buf = ByteBuffer.allocate(8192);
                while (channel.read(buf) >= 0 && all.size() < 1 << 20) {
                    all.write(buf.array(), 0, buf.position());
                    buf.clear();
                    if (complete(all.toString(StandardCharsets.ISO_8859_1))) {
                        break; // a daemon that keeps the connection open despite HTTP/1.0 has said everything
                    }
                }
                return all.toString(StandardCharsets.UTF_8);
            } catch (IOException e) {
                throw new java.io.UncheckedIOException(e);
            }
        });
        String response;
        try {
            response = body.get(timeout.toMillis(), TimeUnit.MILLISECONDS);
        } catch (TimeoutException e) {
            channel.close();
            throw new IOException("no answer within " + timeout.toSeconds() + " s");
        } catch (ExecutionException e) {
            throw new IOException(e.getCause() instanceof java.io.UncheckedIOException u ? u.getCause().getMessage() : String.valueOf(e.getCause()));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted");
        }
        int split = response.indexOf("\r\n\r\n");
        if (!response.startsWith("HTTP/1.") || split < 0 || !response.substring(0, response.indexOf("\r\n")).contains(" 200")) {
            throw new IOException("GET /version did not answer 200: " + response.lines().findFirst().orElse("(nothing)"));
        }
        JsonNode json = JSON.readTree(response.substring(split + 4));
        String version = json.path("Version").asText(null);
        return parse(version).orElseThrow(() -> new IOException("GET /version has no usable Version: " + version));
    }
}
