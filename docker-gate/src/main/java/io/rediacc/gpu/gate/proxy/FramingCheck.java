package io.rediacc.gpu.gate.proxy;

import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpRequest;

import java.util.List;

/**
 * Framing rules on top of Netty's decoder (which already refuses Content-Length together with
 * Transfer-Encoding, duplicate or invalid Content-Length, and Transfer-Encoding on HTTP/1.0).
 * Docker's Go server accepts exactly one Transfer-Encoding, {@code chunked}; any other coding
 * would make the gate and the daemon disagree on where the body ends, so it is refused here.
 */
final class FramingCheck {

    private FramingCheck() {
    }

    /** A message for the client when the framing is not acceptable, or null when it is. */
    static String problem(HttpRequest request) {
        List<String> codings = request.headers().getAll(HttpHeaderNames.TRANSFER_ENCODING);
        if (codings.isEmpty()) {
            return null;
        }
        if (codings.size() != 1 || !"chunked".equalsIgnoreCase(codings.get(0).trim())) {
            return "Transfer-Encoding " + String.join(", ", codings)
                    + " is not accepted: send the body with Content-Length or Transfer-Encoding: chunked alone";
        }
        return null;
    }
}
