package io.rediacc.gpu.inventory.rest;

import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.inventory.support.FleetResources;
import io.restassured.response.Response;
import org.jboss.logging.MDC;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.logging.Handler;
import java.util.logging.LogRecord;
import java.util.logging.Logger;

import static io.rediacc.gpu.inventory.support.FleetApi.asViewer;
import static io.restassured.RestAssured.given;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The one error model (api-security's io.rediacc.gpu.api.problem, docs/ERRORS.md) as inventory-service
 * answers it: RFC 9457 problem+json, a request id on every answer that the log lines carry too, and a
 * bug answered 500 with that id — never 503, which a client would retry.
 */
@QuarkusTest
@FleetResources
class ProblemAnswersTest {

    /** The log lines of the request, with the request id the log's MDC held when each was written. */
    private final List<String> logged = new CopyOnWriteArrayList<>();
    private final Handler capture = new Handler() {
        @Override
        public void publish(LogRecord record) {
            logged.add(MDC.get("requestId") + " " + record.getLoggerName() + " " + record.getMessage());
        }

        @Override
        public void flush() {
        }

        @Override
        public void close() {
        }
    };

    @BeforeEach
    void listen() {
        Logger.getLogger("io.rediacc").addHandler(capture);
    }

    @AfterEach
    void stopListening() {
        Logger.getLogger("io.rediacc").removeHandler(capture);
    }

    @Test
    void anErrorIsAProblemDocumentWithTypeTitleStatusDetailHintAndRequestId() {
        Response answer = asViewer().get("/api/v1/machines/no-such-machine");

        assertThat(answer.statusCode()).isEqualTo(404);
        assertThat(answer.contentType()).startsWith("application/problem+json");
        assertThat(answer.<String>path("type")).isEqualTo("https://rediacc.io/problems/unknown-machine");
        assertThat(answer.<String>path("title")).isEqualTo("Unknown machine");
        assertThat(answer.<Integer>path("status")).isEqualTo(404);
        assertThat(answer.<String>path("detail")).contains("no-such-machine");
        assertThat(answer.<String>path("hint")).contains("rdc machine list");
        assertThat(answer.<String>path("error")).isEqualTo("unknown-machine");
        assertThat(answer.<String>path("machine")).isEqualTo("no-such-machine");
        assertThat(answer.<String>path("requestId")).isEqualTo(answer.header("X-Request-Id")).isNotBlank();
    }

    @Test
    void everyAnswerCarriesARequestIdTheCallersWhenSane() {
        String generated = asViewer().get("/api/v1/machines").then().statusCode(200).extract().header("X-Request-Id");
        assertThat(generated).matches("[0-9a-f-]{36}");
        assertThat(asViewer().get("/api/v1/machines").header("X-Request-Id")).isNotEqualTo(generated);

        assertThat(asViewer().header("X-Request-Id", "trace.42:abc-DEF_1").get("/api/v1/machines").header("X-Request-Id"))
                .isEqualTo("trace.42:abc-DEF_1");
        // an id that could forge log lines or is too long is replaced, never echoed
        for (String insane : List.of("a b", "x".repeat(65), "id\u00e9", "<script>")) {
            String answered = asViewer().header("X-Request-Id", insane).get("/api/v1/machines").header("X-Request-Id");
            assertThat(answered).as(insane).isNotEqualTo(insane).matches("[0-9a-f-]{36}");
        }
        // refusals before any resource (401, the size limits) carry one too
        Response unauthorized = given().header("X-Request-Id", "no-token-1").get("/api/v1/machines");
        assertThat(unauthorized.statusCode()).isEqualTo(401);
        assertThat(unauthorized.header("X-Request-Id")).isEqualTo("no-token-1");
        assertThat(unauthorized.<String>path("requestId")).isEqualTo("no-token-1");
        Response tooLong = asViewer().header("X-Request-Id", "long-url-1").get("/api/v1/machines/" + "m".repeat(9000));
        assertThat(tooLong.statusCode()).isEqualTo(414);
        assertThat(tooLong.contentType()).startsWith("application/problem+json");
        assertThat(tooLong.<String>path("requestId")).isEqualTo("long-url-1");
    }

    @Test
    void aBugIs500WithTheRequestIdAndItsLogLinesCarryTheSameId() {
        Response answer = asViewer().header("X-Request-Id", "bug-report-7").get("/api/v1/test-only/failures/bug");

        assertThat(answer.statusCode()).isEqualTo(500);
        assertThat(answer.contentType()).startsWith("application/problem+json");
        assertThat(answer.<String>path("error")).isEqualTo("internal-error");
        assertThat(answer.<String>path("requestId")).isEqualTo("bug-report-7");
        assertThat(answer.<String>path("detail")).contains("bug-report-7").doesNotContain("IllegalStateException");
        assertThat(answer.asString()).doesNotContain("at io.rediacc");
        assertThat(logged).anySatisfy(line -> assertThat(line).startsWith("bug-report-7 ").contains("about to fail like a bug"));
        assertThat(logged).anySatisfy(line -> assertThat(line).startsWith("bug-report-7 ").contains("unexpected error"));
    }

    @Test
    void aMalformedStatementIsABugNotAnOutage() {
        Response answer = asViewer().get("/api/v1/test-only/failures/bad-sql");

        assertThat(answer.statusCode()).isEqualTo(500);
        assertThat(answer.<String>path("error")).isEqualTo("internal-error");
        assertThat(answer.header("Retry-After")).isNull();
    }

    @Test
    void anUnreachableDatabaseIs503WithRetryAfter() {
        Response answer = asViewer().get("/api/v1/test-only/failures/database-down");

        assertThat(answer.statusCode()).isEqualTo(503);
        assertThat(answer.<String>path("error")).isEqualTo("database-unavailable");
        assertThat(answer.header("Retry-After")).isEqualTo("5");
    }
}
