package io.rediacc.gpu.cli.client;

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

    public Reply rawInventory(String machine) {
        return http.get("/api/v1/machines/" + machine + "/inventory");
    }
}
