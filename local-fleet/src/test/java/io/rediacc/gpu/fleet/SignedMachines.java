package io.rediacc.gpu.fleet;

import io.rediacc.gpu.contracts.events.CloudEventHeaders;
import io.rediacc.gpu.contracts.events.Topics;
import io.rediacc.gpu.contracts.signing.RecordSigner;
import io.rediacc.gpu.contracts.signing.SigningKeys;
import org.apache.kafka.clients.producer.ProducerRecord;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.security.KeyPair;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The simulated machines' keys, as node-agent and docker-gate hold them: records signed like theirs, and
 * the registration rdc machine setup makes (PUT /api/v1/machines/{m}/key; authentication off in these tests).
 */
final class SignedMachines {

    private static final Map<String, KeyPair> KEYS = new ConcurrentHashMap<>();

    private SignedMachines() {
    }

    static KeyPair keyOf(String machine) {
        return KEYS.computeIfAbsent(machine, m -> SigningKeys.generate());
    }

    /** A record of {@code machine} (key: the machine, or machine/gateId) signed with its key. */
    static ProducerRecord<String, byte[]> record(String topic, String machine, String key, byte[] value) {
        Map<String, byte[]> headers = new LinkedHashMap<>(CloudEventHeaders.of(Topics.byName(topic), "/tests/" + machine, key));
        KeyPair pair = keyOf(machine);
        new RecordSigner(pair.getPrivate(), pair.getPublic()).sign(topic, key, headers, value);
        ProducerRecord<String, byte[]> record = new ProducerRecord<>(topic, key, value);
        headers.forEach((name, v) -> record.headers().add(name, v));
        return record;
    }

    /** Registers the machine's key with the service at {@code baseUri} (idempotent). */
    static void register(HttpClient http, String baseUri, String machine) throws Exception {
        String pem = SigningKeys.publicPem(keyOf(machine).getPublic()).replace("\n", "\\n");
        HttpResponse<String> r = http.send(HttpRequest.newBuilder(URI.create(baseUri + "/api/v1/machines/" + machine + "/key"))
                .header("Content-Type", "application/json")
                .PUT(HttpRequest.BodyPublishers.ofString("{\"publicKey\":\"" + pem + "\"}")).build(), HttpResponse.BodyHandlers.ofString());
        if (r.statusCode() != 200) {
            throw new IllegalStateException("registering the key of " + machine + " answered " + r.statusCode() + ": " + r.body());
        }
    }
}
