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

    /**
     * Every value of a header, or an empty list. Names are expected in lower case; other spellings
     * are collected too, so a data plane that forgot to lower-case cannot hide a framing header.
     */
    public List<String> header(String lowerCaseName) {
        List<String> values = headers.get(lowerCaseName);
        List<String> more = null;
        for (Map.Entry<String, List<String>> entry : headers.entrySet()) {
            if (entry.getKey() != null && entry.getValue() != null && !entry.getKey().equals(lowerCaseName)
                    && entry.getKey().equalsIgnoreCase(lowerCaseName)) {
                more = more == null ? new java.util.ArrayList<>() : more;
                more.addAll(entry.getValue());
            }
        }
        if (more == null) {
            return values == null ? List.of() : values;
        }
        if (values != null) {
            more.addAll(0, values);
        }
        return more;
    }
}
