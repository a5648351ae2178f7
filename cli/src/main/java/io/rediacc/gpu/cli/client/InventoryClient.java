package io.rediacc.gpu.cli.client;

import io.rediacc.gpu.contracts.api.MachineKeyRegistration;

/** inventory-service's API, as rdc uses it. */
public final class InventoryClient {

    public static final String SERVICE = "inventory-service";

    private final ServiceClient http;

    public InventoryClient(ServiceClient http) {
        this.http = http;
    }

    public Reply machines(String query) {
        return http.get("/api/v1/machines" + query);
    }

    public Reply machine(String machine) {
        return http.get("/api/v1/machines/" + machine);
    }

    /** {@code PUT /api/v1/machines/{machine}/key}: the same registration as grant-service's (each service verifies with its own). */
    public Reply registerKey(String machine, String publicKey, boolean rekey, String reason) {
        return http.put("/api/v1/machines/" + machine + "/key" + (rekey ? "?rekey=true" : ""),
                Json.write(new MachineKeyRegistration(publicKey, reason)), java.time.Duration.ofSeconds(30));
    }

    /** {@code PUT /api/v1/machines/{machine}/kafka-user}: the machine's Kafka user with this password (docs/SECURITY.md). */
    public Reply putKafkaUser(String machine, String password) {
        return http.put("/api/v1/machines/" + machine + "/kafka-user",
                Json.write(new io.rediacc.gpu.contracts.api.MachineKafkaCredential(password)), java.time.Duration.ofSeconds(30));
    }

    /** {@code DELETE /api/v1/machines/{machine}/kafka-user}: the machine can no longer log in to Kafka. */
    public Reply deleteKafkaUser(String machine) {
        return http.delete("/api/v1/machines/" + machine + "/kafka-user", java.time.Duration.ofSeconds(30));
    }

    public Reply rawInventory(String machine) {
        return http.get("/api/v1/machines/" + machine + "/inventory");
    }
}
