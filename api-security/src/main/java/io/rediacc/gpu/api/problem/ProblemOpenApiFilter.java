package io.rediacc.gpu.api.problem;

import org.eclipse.microprofile.openapi.OASFactory;
import org.eclipse.microprofile.openapi.OASFilter;
import org.eclipse.microprofile.openapi.models.OpenAPI;
import org.eclipse.microprofile.openapi.models.Operation;
import org.eclipse.microprofile.openapi.models.PathItem;
import org.eclipse.microprofile.openapi.models.media.Content;
import org.eclipse.microprofile.openapi.models.media.Schema;
import org.eclipse.microprofile.openapi.models.responses.APIResponse;
import org.eclipse.microprofile.openapi.models.responses.APIResponses;

import java.util.LinkedHashMap;
import java.util.Map;

/**
 * Makes each service's OpenAPI document tell the whole truth about errors, from one place
 * ({@code mp.openapi.filter}): every error response of every {@code /api} operation is
 * {@code application/problem+json} with the {@code Problem} schema ({@link ProblemBody}); the
 * answers api-security itself gives to any operation (401, 403, 414, 431, 500, 503; 413 and 429 for
 * writes) are listed on each; every response names the {@code X-Request-Id} header.
 */
public class ProblemOpenApiFilter implements OASFilter {

    static final String PROBLEM_REF = "#/components/schemas/Problem";

    private static final Map<String, String> EVERY_OPERATION = ordered(
            "401", "no bearer token, or one the service refuses (unauthorized)",
            "403", "the caller lacks the role the operation needs (forbidden)",
            "414", "the request URL is longer than api.limits.max-uri-length (uri-too-long)",
            "431", "the request headers are larger than api.limits.max-head-size (headers-too-large)",
            "500", "the service failed unexpectedly; requestId finds the log lines (internal-error)",
            "503", "the database cannot be reached, or the machine's lock stays busy; retry after Retry-After seconds");
    private static final Map<String, String> EVERY_WRITE = ordered(
            "413", "the request body is larger than api.limits.max-body-size (body-too-large)",
            "429", "the caller's writes are over the rate limit; retry after Retry-After seconds (rate-limited)");

    @Override
    public void filterOpenAPI(OpenAPI openAPI) {
        if (openAPI.getPaths() == null || openAPI.getPaths().getPathItems() == null) {
            return;
        }
        openAPI.getPaths().getPathItems().forEach((path, item) -> {
            if (path.startsWith("/api/")) {
                item.getOperations().forEach((method, operation) -> complete(method, operation));
            }
        });
    }

    private static void complete(PathItem.HttpMethod method, Operation operation) {
        if (operation.getResponses() == null) {
            operation.setResponses(OASFactory.createAPIResponses());
        }
        APIResponses responses = operation.getResponses();
        EVERY_OPERATION.forEach((status, description) -> addIfMissing(responses, status, description));
        if (method != PathItem.HttpMethod.GET && method != PathItem.HttpMethod.HEAD) {
            EVERY_WRITE.forEach((status, description) -> addIfMissing(responses, status, description));
        }
        responses.getAPIResponses().forEach((status, response) -> {
            if (isError(status)) {
                response.setContent(problemContent());
            }
            response.addHeader(RequestIds.HEADER, OASFactory.createHeader()
                    .description("this request's id (the caller's, when sane, or a new one); the service's log lines carry it too")
                    .schema(OASFactory.createSchema().addType(Schema.SchemaType.STRING)));
        });
    }

    private static void addIfMissing(APIResponses responses, String status, String description) {
        if (!responses.hasAPIResponse(status)) {
            APIResponse response = OASFactory.createAPIResponse().description(description);
            responses.addAPIResponse(status, response);
        }
    }

    private static boolean isError(String status) {
        return "default".equals(status) || status.startsWith("4") || status.startsWith("5");
    }

    private static Content problemContent() {
        return OASFactory.createContent().addMediaType(ProblemBody.MEDIA_TYPE,
                OASFactory.createMediaType().schema(OASFactory.createSchema().ref(PROBLEM_REF)));
    }

    private static Map<String, String> ordered(String... pairs) {
        Map<String, String> map = new LinkedHashMap<>();
        for (int i = 0; i < pairs.length; i += 2) {
            map.put(pairs[i], pairs[i + 1]);
        }
        return map;
    }

}
