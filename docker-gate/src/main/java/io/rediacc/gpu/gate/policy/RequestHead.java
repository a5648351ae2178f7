package io.rediacc.gpu.gate.policy;

import java.util.List;
import java.util.Map;

/**
 * The request line and headers of one Docker API request, as the data plane received them.
 * Header names are lower-case; {@code uri} is the raw request-target (origin or absolute form,
 * percent-encoding and query string untouched).
 */
public record RequestHead(String method, String uri, Map<String, List<String>> headers) {

    public RequestHead {
        headers = headers == null ? Map.of() : headers;
    }

    /** Every value of a header (lower-case name), or an empty list. */
    public List<String> header(String lowerCaseName) {
        List<String> values = headers.get(lowerCaseName);
        return values == null ? List.of() : values;
    }
}
