package io.rediacc.gpu.gate.proxy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.buffer.Unpooled;
import io.netty.handler.codec.http.DefaultFullHttpResponse;
import io.netty.handler.codec.http.FullHttpResponse;
import io.netty.handler.codec.http.HttpHeaderNames;
import io.netty.handler.codec.http.HttpHeaderValues;
import io.netty.handler.codec.http.HttpResponseStatus;
import io.netty.handler.codec.http.HttpVersion;

/**
 * Error responses in the Docker Engine API's format ({@code {"message": "..."}}), which the docker
 * CLI and compose print as they print any daemon error. A refusal's body also carries its
 * {@code fix} (the command or setting that fixes it) beside the message, for clients that show it
 * apart; the docker CLI shows only the message, which names the fix too.
 */
final class DockerErrors {

    private static final ObjectMapper JSON = new ObjectMapper();

    private DockerErrors() {
    }

    static FullHttpResponse response(int status, String message, boolean close) {
        return response(status, message, null, close);
    }

    /** The answer to a refused request: its status, message and fix. */
    static FullHttpResponse refusal(io.rediacc.gpu.gate.policy.Refusal refusal, boolean close) {
        return response(refusal.status(), refusal.message(), refusal.fix(), close);
    }

    /** An error with {@code fix} beside the message where there is one (null: none). */
    static FullHttpResponse response(int status, String message, String fix, boolean close) {
        ObjectNode body = JSON.createObjectNode().put("message", message);
        if (fix != null) {
            body.put("fix", fix);
        }
        byte[] bytes;
        try {
            bytes = JSON.writeValueAsBytes(body);
        } catch (Exception e) {
            bytes = "{\"message\":\"request refused by the gate\"}".getBytes(java.nio.charset.StandardCharsets.UTF_8);
        }
        HttpResponseStatus code = HttpResponseStatus.valueOf(status);
        FullHttpResponse response = new DefaultFullHttpResponse(HttpVersion.HTTP_1_1, code, Unpooled.wrappedBuffer(bytes));
        response.headers()
                .set(HttpHeaderNames.CONTENT_TYPE, HttpHeaderValues.APPLICATION_JSON)
                .setInt(HttpHeaderNames.CONTENT_LENGTH, bytes.length);
        if (close) {
            response.headers().set(HttpHeaderNames.CONNECTION, HttpHeaderValues.CLOSE);
        }
        return response;
    }
}
