package io.rediacc.gpu.cli;

import com.sun.net.httpserver.HttpServer;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.Writer;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.List;

/**
 * Not a command: the training run of rdc's class-data sharing archive. The build (and the Debian
 * package's postinst, with the Java actually installed) runs it once under
 * {@code -XX:DumpLoadedClassList} and dumps a static archive of that list ({@code -Xshare:dump}; the
 * {@code rdc} launcher), so the classes that these commands load — picocli's model,
 * Jackson, the JDK's HTTP client, the table printer — are mapped from the archive at every later
 * start instead of being loaded and verified again. Output is discarded; only the loading counts.
 * It answers from a throwaway HTTP server on 127.0.0.1, never a real service, and caches nothing.
 */
public final class CdsTraining {

    static final String MACHINES = "{\"items\":[{\"machine\":\"m\",\"platform\":\"linux\",\"gpuCount\":1,"
            + "\"generatedAt\":\"2025-06-02T09:03:51.027Z\",\"ageSeconds\":7,\"stale\":false,\"agentVersion\":\"0\"}],"
            + "\"page\":0,\"size\":500,\"total\":1}";
    static final String GRANTS = "{\"machine\":\"m\",\"repo\":\"r\",\"repoGuid\":\"3f2b8c1e-9d4a-4e57-8f0a-2c6d7e9b1a43\","
            + "\"grants\":[{\"device\":\"nvidia.com/gpu=0\",\"exclusive\":true,\"grantedBy\":\"rdc\","
            + "\"grantedAt\":\"2025-06-01T16:20:00Z\"}]}";
    static final String UNKNOWN = "{\"error\":\"unknown machine\",\"detail\":\"no inventory\",\"hint\":\"check the name\"}";

    private CdsTraining() {
    }

    public static void main(String[] args) throws IOException {
        HttpServer server = HttpServer.create(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 0);
        server.createContext("/", exchange -> {
            String path = exchange.getRequestURI().getPath();
            String body = path.equals("/api/v1/machines") ? MACHINES : path.endsWith("/grants") ? GRANTS : UNKNOWN;
            int status = body == UNKNOWN ? 404 : 200;
            byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
            exchange.getResponseHeaders().set("Content-Type", "application/json");
            exchange.sendResponseHeaders(status, bytes.length);
            try (OutputStream out = exchange.getResponseBody()) {
                out.write(bytes);
            }
        });
        server.start();
        String url = "http://127.0.0.1:" + server.getAddress().getPort();
        List<String> common = List.of("--config", "/dev/null", "--server", url);
        try {
            for (List<String> command : List.of(
                    List.of("--version"),
                    List.of("--help"),
                    List.of("machine", "list"),
                    List.of("machine", "list", "-o", "json"),
                    List.of("machine", "list", "-o", "yaml"),
                    List.of("machine", "gpu", "list", "m"),
                    List.of("repo", "gpu", "list", "r@m"),
                    List.of("repo", "gpu", "grant", "r@m", "--device", "not a device"),
                    List.of("completion"))) {
                run(command.get(0).startsWith("--") ? command : concat(common, command));
            }
        } finally {
            server.stop(0);
        }
    }

    private static void run(List<String> args) {
        PrintWriter discard = new PrintWriter(Writer.nullWriter());
        String[] a = args.toArray(String[]::new);
        // through RdcMain, as a command runs: its classes belong in the archive too
        RdcMain.commandLineFor(a).setOut(discard).setErr(discard).execute(a);
    }

    private static List<String> concat(List<String> a, List<String> b) {
        return java.util.stream.Stream.concat(a.stream(), b.stream()).toList();
    }
}
