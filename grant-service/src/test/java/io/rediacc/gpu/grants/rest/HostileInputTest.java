package io.rediacc.gpu.grants.rest;

import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.contracts.events.RepoInfo;
import io.rediacc.gpu.grants.testing.Fleet;
import io.rediacc.gpu.grants.testing.GrantApi;
import io.rediacc.gpu.grants.testing.TestMachine;
import io.rediacc.gpu.testsupport.AnswerTally;
import io.rediacc.gpu.testsupport.HostileInput;
import io.rediacc.gpu.testsupport.KafkaTestResource;
import io.rediacc.gpu.testsupport.PostgresTestResource;
import io.restassured.response.Response;
import io.restassured.specification.RequestSpecification;
import org.jboss.logging.Logger;
import org.junit.jupiter.api.Test;

import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * Rule 8 under fuzzing: generated hostile paths, query values and bodies on every endpoint, as an
 * operator, a viewer and nobody. No answer is a 5xx, and every 4xx is the JSON error shape.
 */
@QuarkusTest
@WithTestResource(KafkaTestResource.class)
@WithTestResource(PostgresTestResource.class)
class HostileInputTest {

    private static final Logger LOG = Logger.getLogger(HostileInputTest.class);
    static final long SEED = 20261129L;
    static final int CASES = 300;

    private final GrantApi operator = new GrantApi();

    @Test
    void hostileRequestsNeverGetA5xxAndEvery4xxIsAJsonError() {
        RepoInfo train = Fleet.repo("train");
        TestMachine m = TestMachine.withRepos(operator, "fuzz", train);
        HostileInput input = new HostileInput(SEED);
        AnswerTally answers = new AnswerTally();
        int unsent = 0;

        for (int i = 0; i < CASES; i++) {
            GrantApi caller = switch (input.random().nextInt(8)) {
                case 0 -> operator.as(null);
                case 1 -> operator.as(GrantApi.VIEWER_TOKEN);
                case 2 -> operator.as(input.pick(List.of("x", "Bearer", "\u00e9\u00e9", "a".repeat(5000))));
                default -> operator;
            };
            String repo = input.random().nextInt(3) == 0 ? m.name + "-unknown" : input.random().nextBoolean() ? "train@" + m.name : input.segment();
            RequestSpecification request = caller.request().urlEncodingEnabled(false);
            if (input.random().nextBoolean()) {
                request = request.queryParam(input.pick(List.of("wait", "machine", "wait", "x", "%00", "machine")), input.queryValue());
            }
            String description;
            Response response;
            try {
            switch (input.random().nextInt(4)) {
                case 0 -> {
                    String body = input.body();
                    String type = input.pick(List.of("application/json", "application/json", "application/json; charset=utf-8",
                            "text/plain", "application/x-www-form-urlencoded", "application/json; charset=latin1"));
                    description = "POST " + repo + " " + type + " " + AnswerTally.abbreviate(body);
                    response = request.contentType(type).body(body.getBytes(StandardCharsets.UTF_8)).post("/api/v1/repos/" + repo + "/grants");
                }
                case 1 -> {
                    String device = input.segment();
                    description = "DELETE " + repo + "/" + device;
                    response = request.delete("/api/v1/repos/" + repo + "/grants/" + device);
                }
                case 2 -> {
                    description = "GET repo " + repo;
                    response = request.get("/api/v1/repos/" + repo + "/grants");
                }
                default -> {
                    String machine = input.random().nextBoolean() ? m.name : input.segment();
                    description = "GET machine " + machine;
                    response = request.get("/api/v1/machines/" + machine + "/grants");
                }
            }
            } catch (RuntimeException clientRefused) {
                unsent++; // the HTTP client itself would not build this request (e.g. a malformed escape)
                continue;
            }
            check(answers, response, description);
        }
        // huge bodies: refused by RequestLimits with a JSON 413 before anything parses them, then drained, so a
        // client that sends everything before reading still gets the answer (no broken pipe)
        for (int size : new int[]{1024 * 1024, 10 * 1024 * 1024}) {
            Response response = operator.request().contentType("application/json").body(HostileInput.huge(size))
                    .post("/api/v1/repos/train@" + m.name + "/grants");
            assertThat(response.statusCode()).as("a %d-byte body", size).isEqualTo(413);
            check(answers, response, "POST a " + size + "-byte body");
        }
        LOG.infof("hostile input: %d requests, %d not sendable by the client, 2xx %d, 4xx %d, 5xx %d", CASES + 2, unsent, answers.count(2), answers.count(4), answers.count(5));
        assertThat(answers.failures()).as("answers that were 5xx or not a JSON error").isEmpty();
        assertThat(answers.count(4)).as("the generator reaches the refusals").isGreaterThan(CASES / 2);
        // and the service still works
        assertThat(operator.grant(m.ref(train), "nvidia.com/gpu=0", false, "0").statusCode()).isIn(200, 201, 202);
    }

    private static void check(AnswerTally answers, Response response, String description) {
        answers.check(response.statusCode(), response.contentType(), response.asString(), description);
    }
}
