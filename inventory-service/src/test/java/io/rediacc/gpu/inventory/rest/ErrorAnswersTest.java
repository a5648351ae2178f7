package io.rediacc.gpu.inventory.rest;

import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.inventory.support.FleetResources;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.api.Test;

import static io.rediacc.gpu.inventory.support.FleetApi.asViewer;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.emptyOrNullString;

@QuarkusTest
@FleetResources
class ErrorAnswersTest {

    @Test
    void anUnknownMachineIs404WithWhatToDo() {
        for (String path : new String[]{"", "/gpus", "/inventory"}) {
            asViewer().get("/api/v1/machines/no-such-machine" + path).then()
                    .statusCode(404)
                    .contentType("application/problem+json")
                    .body("error", equalTo("unknown-machine"))
                    .body("detail", containsString("no-such-machine"))
                    .body("hint", containsString("rdc machine list"));
        }
    }

    @ParameterizedTest
    @CsvSource(delimiter = '|', value = {
            "page=-1        | page=-1 is negative",
            "page=abc       | page=abc is not a whole number",
            "page=2147483647| page=2147483647 is beyond the highest page, 1000000",
            "page=99999999999| page=99999999999 is out of range",
            "size=0         | size=0 is out of range",
            "size=501       | size=501 is out of range",
            "size=1e3       | size=1e3 is not a whole number",
            "freeDevices=yes| freeDevices=\"yes\" is not a boolean: only true or false (lower case) is accepted",
            "freeDevices=TRUE| freeDevices=\"TRUE\" is not a boolean: only true or false (lower case) is accepted"})
    void badListParametersAre400SayingWhichOne(String query, String detail) {
        for (String list : new String[]{"/api/v1/machines?", "/api/v1/gpus?"}) {
            if (list.contains("gpus") && query.startsWith("freeDevices")) {
                continue;
            }
            asViewer().urlEncodingEnabled(false).get(list + query).then()
                    .statusCode(400)
                    .contentType("application/problem+json")
                    .body("error", equalTo("invalid-parameter"))
                    .body("detail", equalTo(detail))
                    .body("hint", not(emptyOrNullString()));
        }
    }

    @Test
    void anInvalidMachineNameIs400NotAFailure() {
        asViewer().urlEncodingEnabled(false).get("/api/v1/machines/-bad%20name").then()
                .statusCode(400)
                .body("error", equalTo("invalid-parameter"))
                .body("detail", containsString("machine name"));
        String tooLong = "m".repeat(64);
        asViewer().get("/api/v1/machines/" + tooLong + "/inventory").then().statusCode(400);
    }

    @Test
    void unknownPathsAnswerInTheErrorFormat() {
        asViewer().get("/api/v1/nothing-here").then()
                .statusCode(404)
                .contentType("application/problem+json")
                .body("error", equalTo("not-found"))
                .body("hint", containsString("/api/v1"));
        asViewer().post("/api/v1/machines").then()
                .statusCode(405)
                .contentType("application/problem+json")
                .body("error", not(emptyOrNullString()));
    }

    @Test
    void controlCharactersInFiltersAre400() {
        asViewer().urlEncodingEnabled(false).get("/api/v1/machines?vendor=nv%00idia").then()
                .statusCode(400)
                .body("detail", containsString("printable"));
    }
}
