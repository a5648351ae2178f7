package io.rediacc.gpu.inventory.rest;

import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.inventory.support.FleetResources;
import io.rediacc.gpu.inventory.support.FleetTopics;
import io.rediacc.gpu.inventory.support.Inventories;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

import static io.rediacc.gpu.inventory.support.FleetApi.asViewer;
import static io.rediacc.gpu.inventory.support.FleetApi.awaitMachine;
import static io.rediacc.gpu.inventory.support.Inventories.GPU_A_GUID;
import static io.rediacc.gpu.inventory.support.Inventories.gate;
import static io.rediacc.gpu.inventory.support.Inventories.grant;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.everyItem;
import static org.hamcrest.Matchers.greaterThanOrEqualTo;
import static org.hamcrest.Matchers.hasItem;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.lessThan;
import static org.hamcrest.Matchers.not;

@QuarkusTest
@FleetResources
class FleetQueriesTest {

    @Test
    void machinesListShowsGpuCountPlatformAndInventoryAge() {
        String machine = Inventories.uniqueMachine("listed");
        String product = uniqueProduct();
        FleetTopics.inventory(Inventories.nvidiaHost(machine, Inventories.now().minusSeconds(20), 3, product));
        awaitMachine(machine);

        asViewer().queryParam("product", product).get("/api/v1/machines").then().statusCode(200)
                .body("total", equalTo(1))
                .body("page", equalTo(0))
                .body("size", equalTo(50))
                .body("items[0].machine", equalTo(machine))
                .body("items[0].gpuCount", equalTo(3))
                .body("items[0].platform", equalTo("local"))
                .body("items[0].agentVersion", equalTo("0.1.0"))
                .body("items[0].ageSeconds", greaterThanOrEqualTo(20))
                .body("items[0].ageSeconds", lessThan(60))
                .body("items[0].stale", equalTo(false));
    }

    @Test
    void anInventoryOlderThanThreeHeartbeatsIsStale() {
        String fresh = Inventories.uniqueMachine("fresh");
        String old = Inventories.uniqueMachine("stale");
        String product = uniqueProduct();
        // heartbeat 60 s: 3 heartbeats = 180 s
        FleetTopics.inventory(Inventories.nvidiaHost(fresh, Inventories.now().minusSeconds(170), 1, product));
        FleetTopics.inventory(Inventories.nvidiaHost(old, Inventories.now().minusSeconds(190), 1, product));
        awaitMachine(fresh);
        awaitMachine(old).body("stale", equalTo(true));

        asViewer().queryParam("product", product).get("/api/v1/machines").then().statusCode(200)
                .body("items.machine", contains(List.of(fresh, old).stream().sorted().toArray()))
                .body("items.find { it.machine == '" + fresh + "' }.stale", equalTo(false))
                .body("items.find { it.machine == '" + old + "' }.stale", equalTo(true));
    }

    @Test
    void fleetCanBeQueriedByVendorAndProductName() {
        String product = uniqueProduct();
        String nvidia = Inventories.uniqueMachine("by-vendor-nv");
        String amd = Inventories.uniqueMachine("by-vendor-amd");
        FleetTopics.inventory(Inventories.nvidiaHost(nvidia, Inventories.now(), 1, "NVIDIA " + product + "-SXM4"));
        FleetTopics.inventory(Inventories.amdHost(amd, Inventories.now(), "AMD Instinct " + product));
        awaitMachine(nvidia);
        awaitMachine(amd);

        asViewer().queryParam("product", product.toLowerCase()).get("/api/v1/machines").then().statusCode(200)
                .body("total", equalTo(2));
        asViewer().queryParam("product", product).queryParam("vendor", "AMD").get("/api/v1/machines").then().statusCode(200)
                .body("items.machine", contains(amd));
        asViewer().queryParam("product", product).queryParam("vendor", "nvidia").get("/api/v1/machines").then().statusCode(200)
                .body("items.machine", contains(nvidia));
        asViewer().queryParam("vendor", "amd").queryParam("size", 500).get("/api/v1/machines").then().statusCode(200)
                .body("items.machine", hasItem(amd))
                .body("items.machine", not(hasItem(nvidia)));
        asViewer().queryParam("product", "%").get("/api/v1/machines").then().statusCode(200)
                .body("total", equalTo(0));

        asViewer().queryParam("product", product).get("/api/v1/gpus").then().statusCode(200)
                .body("total", equalTo(2))
                .body("items.machine", hasItem(amd))
                .body("items.find { it.machine == '" + amd + "' }.vendor", equalTo("amd"))
                .body("items.find { it.machine == '" + nvidia + "' }.driverVersion", equalTo("550.127.05"));
        asViewer().queryParam("product", product).queryParam("vendor", "nvidia").get("/api/v1/gpus").then().statusCode(200)
                .body("items.vendor", everyItem(equalTo("nvidia")))
                .body("total", equalTo(1));
    }

    @Test
    void machinesWithFreeDevicesExcludeThoseWhoseEveryDeviceIsExclusivelyHeld() {
        String product = uniqueProduct();
        String full = Inventories.uniqueMachine("all-held");
        String partly = Inventories.uniqueMachine("partly-held");
        String deadGate = Inventories.uniqueMachine("dead-gate");
        // one card: devices gpu=0 and gpu=all
        FleetTopics.inventory(Inventories.nvidiaHost(full, Inventories.now(), 1, product));
        FleetTopics.inventory(Inventories.nvidiaHost(partly, Inventories.now(), 1, product));
        FleetTopics.inventory(Inventories.nvidiaHost(deadGate, Inventories.now(), 1, product));
        Instant now = Inventories.now();
        FleetTopics.gateStatus(gate(full, "gate-1", 1, now,
                grant("gpu-a", GPU_A_GUID, "nvidia.com/gpu=0", true), grant("gpu-a", GPU_A_GUID, "nvidia.com/gpu=all", true)));
        FleetTopics.gateStatus(gate(partly, "gate-1", 1, now,
                grant("gpu-a", GPU_A_GUID, "nvidia.com/gpu=0", true), grant("gpu-a", GPU_A_GUID, "nvidia.com/gpu=all", false)));
        Instant longAgo = now.minusSeconds(600);
        FleetTopics.gateStatus(gate(deadGate, "gate-1", 1, longAgo,
                grant("gpu-a", GPU_A_GUID, "nvidia.com/gpu=0", true), grant("gpu-a", GPU_A_GUID, "nvidia.com/gpu=all", true)),
                longAgo);
        for (String m : List.of(full, partly, deadGate)) {
            awaitMachine(m);
            await().atMost(Duration.ofSeconds(60)).untilAsserted(() ->
                    asViewer().get("/api/v1/machines/{m}", m).then().body("gates", hasSize(1)));
        }

        asViewer().queryParam("product", product).queryParam("freeDevices", "true").get("/api/v1/machines").then()
                .statusCode(200)
                .body("items.machine", contains(List.of(deadGate, partly).stream().sorted().toArray()));
        asViewer().queryParam("product", product).queryParam("freeDevices", "false").get("/api/v1/machines").then()
                .statusCode(200)
                .body("total", equalTo(3));
    }

    @Test
    void listsArePagedInNameOrder() {
        String product = uniqueProduct();
        String prefix = Inventories.uniqueMachine("page");
        for (int i = 0; i < 5; i++) {
            FleetTopics.inventory(Inventories.nvidiaHost(prefix + "-" + i, Inventories.now(), 1, product));
        }
        for (int i = 0; i < 5; i++) {
            awaitMachine(prefix + "-" + i);
        }

        asViewer().queryParam("product", product).queryParam("size", 2).get("/api/v1/machines").then().statusCode(200)
                .body("total", equalTo(5)).body("page", equalTo(0)).body("size", equalTo(2))
                .body("items.machine", contains(prefix + "-0", prefix + "-1"));
        asViewer().queryParam("product", product).queryParam("size", 2).queryParam("page", 2).get("/api/v1/machines").then()
                .statusCode(200)
                .body("total", equalTo(5))
                .body("items.machine", contains(prefix + "-4"));
        asViewer().queryParam("product", product).queryParam("size", 2).queryParam("page", 3).get("/api/v1/machines").then()
                .statusCode(200)
                .body("total", equalTo(5))
                .body("items", hasSize(0));
        asViewer().queryParam("product", product).queryParam("size", 3).queryParam("page", 1).get("/api/v1/gpus").then()
                .statusCode(200)
                .body("total", equalTo(5))
                .body("items.machine", contains(prefix + "-3", prefix + "-4"));
    }

    private static String uniqueProduct() {
        return "Card" + UUID.randomUUID().toString().substring(0, 8).toUpperCase();
    }
}
