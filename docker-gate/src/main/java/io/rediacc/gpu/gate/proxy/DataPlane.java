package io.rediacc.gpu.gate.proxy;

import io.netty.handler.codec.http.HttpDecoderConfig;
import io.rediacc.gpu.gate.policy.GatePolicy;
import io.rediacc.gpu.gate.policy.GrantLookup;

import java.time.Duration;

/** What every connection of every repo shares: the policy, the grants, the threads and the limits. */
public record DataPlane(GatePolicy policy, GrantLookup grants, RefusalRecorder recorder, NettyTransport transport,
                        Duration daemonConnectTimeout, Duration daemonInspectTimeout, ConnectionLimits limits) {

    public DataPlane {
        limits.checkFits(policy.maxBodyBytes());
    }

    /** Largest stored-container document the gate reads before deciding a start. */
    static final int MAX_INSPECT_BYTES = 16 * 1024 * 1024;

    /**
     * The request decoder's settings, explicit so no system property can weaken them: a message
     * with both Content-Length and Transfer-Encoding, duplicate Content-Length headers or
     * Transfer-Encoding on HTTP/1.0 fails to decode (and is refused) instead of being normalised.
     */
    static HttpDecoderConfig requestDecoderConfig() {
        return new HttpDecoderConfig()
                .setMaxInitialLineLength(16 * 1024)
                .setMaxHeaderSize(64 * 1024)
                .setMaxChunkSize(64 * 1024)
                .setValidateHeaders(true)
                .setAllowDuplicateContentLengths(false)
                .setAllowPartialChunks(true)
                .setUseRfc9112TransferEncoding(true)
                .setStrictLineParsing(true);
    }

    static HttpDecoderConfig responseDecoderConfig() {
        return new HttpDecoderConfig()
                .setMaxInitialLineLength(16 * 1024)
                .setMaxHeaderSize(64 * 1024)
                .setMaxChunkSize(64 * 1024)
                .setAllowPartialChunks(true);
    }
}
