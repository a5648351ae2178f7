package io.rediacc.gpu.api.problem;

import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import jakarta.enterprise.event.Observes;
import jakarta.inject.Singleton;
import org.jboss.logging.MDC;

import java.util.UUID;
import java.util.regex.Pattern;

/**
 * Gives every request an id: the caller's {@code X-Request-Id} when it is sane (1–64 characters of
 * letters, digits, {@code . _ : -}), a new UUID otherwise. The id goes back on every answer in the
 * same header, into every error body ({@code requestId}) and into the log lines of the request
 * (MDC key {@value #MDC_KEY}; the services' log format prints it), so that one id finds an answer's
 * log lines.
 */
@Singleton
public class RequestIds {

    public static final String HEADER = "X-Request-Id";
    public static final String MDC_KEY = "requestId";
    /** Before every other route, the size limits included, so that even their refusals carry the id. */
    public static final int ROUTE_ORDER = Integer.MIN_VALUE;

    private static final Pattern SANE = Pattern.compile("[A-Za-z0-9._:-]{1,64}");

    void install(@Observes Router router) {
        router.route().order(ROUTE_ORDER).handler(this::assign);
    }

    void assign(RoutingContext ctx) {
        String id = accepted(ctx.request().getHeader(HEADER));
        // the resources and exception mappers read it back from the request
        ctx.request().headers().set(HEADER, id);
        ctx.put(MDC_KEY, id);
        ctx.response().putHeader(HEADER, id);
        MDC.put(MDC_KEY, id);
        ctx.addEndHandler(ignored -> MDC.remove(MDC_KEY));
        ctx.next();
    }

    /** The caller's id when sane, a fresh one otherwise. */
    public static String accepted(String offered) {
        return offered != null && SANE.matcher(offered).matches() ? offered : UUID.randomUUID().toString();
    }

    /** The current request's id as the log sees it, or a fresh one outside a request. */
    public static String current() {
        Object id = MDC.get(MDC_KEY);
        return id != null ? id.toString() : UUID.randomUUID().toString();
    }
}
