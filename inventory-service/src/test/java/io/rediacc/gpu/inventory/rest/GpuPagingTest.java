package io.rediacc.gpu.inventory.rest;

import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.inventory.support.FleetResources;
import io.rediacc.gpu.inventory.support.FleetTopics;
import io.rediacc.gpu.inventory.support.Inventories;
import io.restassured.path.json.JsonPath;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;

import static io.rediacc.gpu.inventory.support.FleetApi.awaitMachine;
import static io.rediacc.gpu.inventory.support.FleetApi.asViewer;
import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;

/** The GPU listing pages by key: a walk with cursors sees every GPU once, whatever is added meanwhile. */
@QuarkusTest
@FleetResources
class GpuPagingTest {

    @Test
    void walkingWithCursorsReturnsEveryGpuExactlyOnceWhileMachinesAreAdded() {
        String product = "Walk" + UUID.randomUUID().toString().substring(0, 8).toUpperCase();
        String prefix = Inventories.uniqueMachine("walk");
        List<String> expected = new ArrayList<>();
        for (int i = 1; i <= 6; i++) {
            publish(prefix + "-" + i, product, 3);
            for (int g = 0; g < 3; g++) {
                expected.add(prefix + "-" + i + "#" + g);
            }
        }
        awaitGpus(product, 18);

        List<String> seen = new ArrayList<>();
        String after = null;
        int pages = 0;
        do {
            var request = asViewer().queryParam("product", product).queryParam("size", 4);
            if (after != null) {
                request.queryParam("after", after);
            }
            JsonPath page = request.get("/api/v1/gpus").then().statusCode(200).extract().jsonPath();
            assertThat(page.getInt("page")).isEqualTo(pages);
            List<String> machines = page.getList("items.machine");
            List<Integer> indexes = page.getList("items.index");
            for (int i = 0; i < machines.size(); i++) {
                seen.add(machines.get(i) + "#" + indexes.get(i));
            }
            after = page.getString("next");
            pages++;
            if (pages == 2) {
                // one machine sorting before the walk's position, one after it
                publish(prefix + "-0", product, 2);
                publish(prefix + "-9", product, 2);
                awaitGpus(product, 22);
            }
        } while (after != null && pages < 20);

        assertThat(seen).doesNotHaveDuplicates();
        assertThat(seen).containsAll(expected);
        assertThat(seen).contains(prefix + "-9#0", prefix + "-9#1").doesNotContain(prefix + "-0#0");
        assertThat(seen).isSortedAccordingTo((a, b) -> a.compareTo(b));
    }

    @Test
    void pagesByNumberStillWorkAndAgreeWithTheCursorWalk() {
        String product = "Num" + UUID.randomUUID().toString().substring(0, 8).toUpperCase();
        String prefix = Inventories.uniqueMachine("numbered");
        for (int i = 0; i < 3; i++) {
            publish(prefix + "-" + i, product, 2);
        }
        awaitGpus(product, 6);

        JsonPath first = asViewer().queryParam("product", product).queryParam("size", 4).get("/api/v1/gpus").then()
                .statusCode(200).body("total", equalTo(6)).extract().jsonPath();
        JsonPath byCursor = asViewer().queryParam("product", product).queryParam("size", 4)
                .queryParam("after", first.getString("next")).get("/api/v1/gpus").then().statusCode(200)
                .body("next", nullValue()).extract().jsonPath();
        JsonPath byNumber = asViewer().queryParam("product", product).queryParam("size", 4).queryParam("page", 1)
                .get("/api/v1/gpus").then().statusCode(200).body("total", equalTo(6)).body("next", nullValue())
                .extract().jsonPath();
        assertThat(byNumber.getList("items")).hasSize(2).isEqualTo(byCursor.getList("items"));
        assertThat(byNumber.getInt("page")).isEqualTo(1).isEqualTo(byCursor.getInt("page"));
        asViewer().queryParam("product", product).queryParam("page", 5).get("/api/v1/gpus").then().statusCode(200)
                .body("items.size()", equalTo(0)).body("total", equalTo(6));
    }

    @Test
    void theUnfilteredListingByNumberMatchesTheCursorWalk() {
        String prefix = Inventories.uniqueMachine("unfiltered");
        for (int i = 0; i < 4; i++) {
            publish(prefix + "-" + i, "NVIDIA A100-SXM4-40GB", 2);
        }
        for (int i = 0; i < 4; i++) {
            awaitMachine(prefix + "-" + i);
        }
        // page starts of the unfiltered listing are reused for up to a second
        await().atMost(Duration.ofSeconds(60)).untilAsserted(() -> {
            List<Object> walked = new ArrayList<>();
            List<Object> numbered = new ArrayList<>();
            Set<String> keys = new HashSet<>();
            String after = null;
            int page = 0;
            do {
                var request = asViewer().queryParam("size", 25);
                if (after != null) {
                    request.queryParam("after", after);
                }
                JsonPath walk = request.get("/api/v1/gpus").then().statusCode(200).extract().jsonPath();
                walked.addAll(walk.getList("items"));
                numbered.addAll(asViewer().queryParam("size", 25).queryParam("page", page).get("/api/v1/gpus").then()
                        .statusCode(200).extract().jsonPath().getList("items"));
                walk.getList("items.machine").forEach(m -> keys.add((String) m));
                after = walk.getString("next");
                page++;
            } while (after != null && page < 1000);
            assertThat(numbered).isEqualTo(walked);
            assertThat(keys).contains(prefix + "-0", prefix + "-3");
            asViewer().queryParam("size", 25).get("/api/v1/gpus").then().body("total", equalTo(walked.size()));
        });
    }

    @Test
    void aCursorThisServiceDidNotHandOutIsRefused() {
        for (String bad : List.of("garbage", "djF8MHxtfDB8MA", "%%%")) {
            asViewer().queryParam("after", bad).get("/api/v1/gpus").then().statusCode(400)
                    .body("error", equalTo("invalid-parameter"));
        }
        asViewer().queryParam("after", "djF8MnxtMXwwfDU").queryParam("page", 1).get("/api/v1/gpus").then().statusCode(400)
                .body("error", equalTo("invalid-parameter"));
    }

    private static void publish(String machine, String product, int cards) {
        FleetTopics.inventory(Inventories.nvidiaHost(machine, Inventories.now(), cards, product));
    }

    private static void awaitGpus(String product, int count) {
        await().atMost(Duration.ofSeconds(30)).untilAsserted(() ->
                asViewer().queryParam("product", product).get("/api/v1/gpus").then().body("total", equalTo(count)));
    }
}
