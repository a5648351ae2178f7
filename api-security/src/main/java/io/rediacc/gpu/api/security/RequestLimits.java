package io.rediacc.gpu.api.security;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.vertx.core.http.HttpServerRequest;
import io.rediacc.gpu.api.problem.ApiProblem;
import io.rediacc.gpu.api.problem.ProblemBody;
import io.rediacc.gpu.api.problem.ProblemType;
import io.rediacc.gpu.api.problem.RequestIds;
import io.vertx.core.json.Json;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.util.Map;

/**
 * The REST APIs' own size limits ({@code api.limits.*}), checked before anything reads the request, so that an over-long URL,
 * an oversized head or an oversized body gets the usual problem answer ({@code application/problem+json},
 * {@link ProblemBody}) instead of the HTTP layer's bare 414/431/413.
 *
 * <p>Why here: Vert.x answers requests over {@code quarkus.http.limits.*} from inside its HTTP codec,
 * with an empty body, before any route runs. The codec's limits are therefore set well above these
 * (application.properties), and this first route refuses what is over the API's limits. A body
 * declared too large is answered at once and then read to the end and discarded (up to
 * {@code api.limits.max-discarded-body}), so a client that sends its whole body before reading the
 * answer still reads the 413 instead of a broken pipe; beyond that, the connection is closed.
 */
@Singleton
public class RequestLimits {

    private final int maxUriLength;
    private final int maxHeadBytes;
    private final long maxBodyBytes;
    private final long maxDiscardedBody;

    RequestLimits(@ConfigProperty(name = "api.limits.max-uri-length", defaultValue = "8192") int maxUriLength,
                  @ConfigProperty(name = "api.limits.max-head-size", defaultValue = "16384") int maxHeadBytes,
                  @ConfigProperty(name = "api.limits.max-body-size", defaultValue = "65536") long maxBodyBytes,
                  @ConfigProperty(name = "api.limits.max-discarded-body", defaultValue = "16777216") long maxDiscardedBody) {
        this.maxUriLength = maxUriLength;
        this.maxHeadBytes = maxHeadBytes;
        this.maxBodyBytes = maxBodyBytes;
        this.maxDiscardedBody = maxDiscardedBody;
    }

    void install(@Observes Router router) {
        // right after the request id, before every other route, Quarkus' own body-size check included
        router.route().order(RequestIds.ROUTE_ORDER + 1).handler(this::check);
    }

    void check(RoutingContext ctx) {
        HttpServerRequest request = ctx.request();
        String uri = request.uri();
        if (uri.length() > maxUriLength) {
            refuse(ctx, ProblemType.URI_TOO_LONG,
                    "The request URL is " + uri.length() + " characters long; this API accepts at most " + maxUriLength + ".",
                    "Repo, machine and device names are short: check the URL for a pasted value or a loop that appends to it.",
                    Map.of("maxUriLength", maxUriLength));
            return;
        }
        int headBytes = headBytes(request);
        if (headBytes > maxHeadBytes) {
            refuse(ctx, ProblemType.HEADERS_TOO_LARGE,
                    "The request headers are " + headBytes + " bytes; this API accepts at most " + maxHeadBytes + ".",
                    "Send only the Authorization header with one bearer token and the usual Content-Type/Accept headers.",
                    Map.of("maxHeaderBytes", maxHeadBytes));
            return;
        }
        String length = request.getHeader(HttpHeaderNames.CONTENT_LENGTH);
        long declared = parseLength(length);
        if (declared > maxBodyBytes) {
            refuse(ctx, ProblemType.BODY_TOO_LARGE,
                    "The request body is " + declared + " bytes; this API accepts at most " + maxBodyBytes + ".",
                    "The API's request bodies are small JSON objects (a grant is {\"device\":\"nvidia.com/gpu=0\"}); send only the documented fields.",
                    Map.of("maxBodyBytes", maxBodyBytes));
            return;
        }
        ctx.next();
    }

    private void refuse(RoutingContext ctx, ProblemType type, String detail, String hint, Map<String, Object> details) {
        HttpServerRequest request = ctx.request();
        long declared = parseLength(request.getHeader(HttpHeaderNames.CONTENT_LENGTH));
        boolean readRest = !request.isEnded() && declared >= 0 && declared <= maxDiscardedBody;
        String requestId = request.getHeader(RequestIds.HEADER);
        ProblemBody body = new ApiProblem(type, detail, hint, details).body(requestId);
        var response = ctx.response().setStatusCode(type.status()).putHeader(HttpHeaderNames.CONTENT_TYPE, ProblemBody.MEDIA_TYPE);
        if (readRest) {
            // answer now, then drain what the client is still sending: the connection stays usable
            request.handler(ignored -> { });
            request.exceptionHandler(ignored -> { });
            request.resume();
        } else if (!request.isEnded()) {
            response.putHeader(HttpHeaderNames.CONNECTION, "close");
        }
        response.end(Json.encode(body));
    }

    private static int headBytes(HttpServerRequest request) {
        int bytes = 0;
        for (Map.Entry<String, String> header : request.headers()) {
            bytes += header.getKey().length() + header.getValue().length() + 4;
        }
        return bytes;
    }

    private static long parseLength(String value) {
        if (value == null) {
            return -1;
        }
        try {
            return Long.parseLong(value.trim());
        } catch (NumberFormatException malformed) {
            return -1; // the HTTP codec refuses a malformed Content-Length itself
        }
    }
}
