package io.rediacc.gpu.inventory.rest;

import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.inventory.support.FleetResources;
import io.rediacc.gpu.inventory.support.FleetTopics;
import io.rediacc.gpu.inventory.support.Inventories;
import io.rediacc.gpu.testsupport.AnswerTally;
import io.rediacc.gpu.testsupport.HostileInput;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static io.rediacc.gpu.inventory.support.FleetApi.asViewer;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * Generated hostile paths, query parameters and bodies on every endpoint: no answer is a 5xx, and
 * every 4xx is the JSON error shape ({@code error}, {@code detail}, {@code hint}).
 */
@QuarkusTest
@FleetResources
class HostileInputTest {

    private static final Logger LOG = Logger.getLogger(HostileInputTest.class);
    static final long SEED = 20261129L;
    static final int CASES = 300;
    private static final List<String> PARAMS = List.of("page", "size", "vendor", "product", "freeDevices", "page", "size", "%00", "x");

    @Test
    void hostileRequestsNeverGetA5xxAndEvery4xxIsAJsonError() {
        String known = Inventories.uniqueMachine("fuzz");
        FleetTopics.inventory(Inventories.nvidiaHost(known, Inventories.now()));
        // not awaited: under load the inventory may land mid-run, and both answers (404, 200) are checked the same way
        HostileInput input = new HostileInput(SEED);
        AnswerTally answers = new AnswerTally();
        int unsent = 0;

        for (int i = 0; i < CASES; i++) {
            RequestSpecification request = asViewer().urlEncodingEnabled(false);
            int params = input.random().nextInt(3);
            StringBuilder query = new StringBuilder();
            for (int p = 0; p < params; p++) {
                String name = input.pick(PARAMS);
                String value = input.queryValue();
                request = request.queryParam(name, value);
                query.append(name).append('=').append(value).append('&');
            }
            String machine = input.random().nextInt(3) == 0 ? known : input.segment();
            String path = switch (input.random().nextInt(6)) {
                case 0 -> "/api/v1/machines";
                case 1 -> "/api/v1/gpus";
                case 2 -> "/api/v1/machines/" + machine;
                case 3 -> "/api/v1/machines/" + machine + "/gpus";
                case 4 -> "/api/v1/machines/" + machine + "/inventory";
                default -> "/api/v1/machines/" + machine + "/" + input.segment();
            };
            String method = input.pick(List.of("GET", "GET", "GET", "GET", "POST", "PUT", "DELETE", "PATCH"));
            String body = method.equals("GET") ? null : input.body();
            if (body != null) {
                request = request.contentType(input.pick(List.of("application/json", "text/plain"))).body(body.getBytes(StandardCharsets.UTF_8));
            }
            Response response;
            try {
                response = request.request(method, path);
            } catch (RuntimeException clientRefused) {
                unsent++; // the HTTP client itself would not build this request (e.g. a malformed escape)
                continue;
            }
            check(answers, response, method + " " + path + "?" + query + (body == null ? "" : " " + AnswerTally.abbreviate(body)));
        }
        Response huge = asViewer().contentType("application/json").body(HostileInput.huge(9 * 1024 * 1024)).post("/api/v1/machines");
        check(answers, huge, "POST a 9 MiB body");

        LOG.infof("hostile input: %d requests, %d not sendable by the client, 2xx %d, 4xx %d, 5xx %d", CASES + 1, unsent, answers.count(2), answers.count(4), answers.count(5));
        assertThat(answers.failures()).as("answers that were 5xx or not a JSON error").isEmpty();
        assertThat(answers.count(4)).as("the generator reaches the refusals").isGreaterThan(CASES / 3);
        asViewer().get("/api/v1/machines").then().statusCode(200);
    }

    private static void check(AnswerTally answers, Response response, String description) {
        answers.check(response.statusCode(), response.contentType(), response.asString(), description);
    }
}
