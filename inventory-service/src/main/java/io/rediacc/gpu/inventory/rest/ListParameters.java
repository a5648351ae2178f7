package io.rediacc.gpu.inventory.rest;

import io.rediacc.gpu.api.params.QueryFlag;
import io.rediacc.gpu.contracts.identity.Identifiers;
import io.rediacc.gpu.contracts.identity.InvalidIdentifierException;
import io.rediacc.gpu.inventory.config.InventoryConfig;
import io.rediacc.gpu.inventory.service.GpuCursor;
import jakarta.enterprise.context.ApplicationScoped;


/**
 * Parses list parameters from their raw strings. They arrive as strings on purpose: JAX-RS
 * answers a query parameter that does not convert with 404, and a caller deserves a 400 that
 * says which parameter was wrong.
 */
@ApplicationScoped
public class ListParameters {

    private static final int MAX_FILTER_LENGTH = 128;
    /**
     * The highest page number accepted: page × size must stay an int for the database's offset
     * (page 2147483647 once overflowed into a negative offset and a 503).
     */
    static final int MAX_PAGE = 1_000_000;

    private final InventoryConfig config;

    public ListParameters(InventoryConfig config) {
        this.config = config;
    }

    public int page(String raw) {
        if (raw == null || raw.isBlank()) {
            return 0;
        }
        int page = integer("page", raw);
        if (page < 0) {
            throw new InvalidParameterException("page=" + raw + " is negative", "pages count from 0");
        }
        if (page > MAX_PAGE) {
            throw new InvalidParameterException("page=" + raw + " is beyond the highest page, " + MAX_PAGE,
                    "the answer's 'total' says how many items there are; ask for a page within them");
        }
        return page;
    }

    public int size(String raw) {
        if (raw == null || raw.isBlank()) {
            return config.defaultPageSize();
        }
        int size = integer("size", raw);
        if (size < 1 || size > config.maxPageSize()) {
            throw new InvalidParameterException("size=" + raw + " is out of range",
                    "ask for 1 to " + config.maxPageSize() + " items per page");
        }
        return size;
    }

    /** A text filter: absent when blank; bounded and printable. */
    public String filter(String name, String raw) {
        if (raw == null || raw.isBlank()) {
            return null;
        }
        String value = raw.strip();
        if (value.length() > MAX_FILTER_LENGTH || !value.chars().allMatch(c -> c >= 0x20 && c < 0x7f)) {
            throw new InvalidParameterException(name + " must be printable ASCII of at most " + MAX_FILTER_LENGTH
                    + " characters", "e.g. " + name + ("vendor".equals(name) ? "=nvidia" : "=A100"));
        }
        return value;
    }

    /** A boolean flag, read as every service reads one ({@link QueryFlag}). */
    public boolean flag(String name, String raw) {
        return QueryFlag.parse(name, raw);
    }

    /** The cursor a GPU page handed out as {@code next}; null when absent. */
    public GpuCursor cursor(String raw) {
        if (raw == null || raw.isBlank()) {
            return null;
        }
        try {
            return GpuCursor.decode(raw.strip());
        } catch (IllegalArgumentException e) {
            throw new InvalidParameterException("after=" + (raw.length() > 64 ? raw.substring(0, 64) + "..." : raw)
                    + " is not a cursor of this listing",
                    "pass the 'next' value of the previous page unchanged, or start again without 'after'");
        }
    }

    public String machine(String raw) {
        try {
            return Identifiers.machine(raw);
        } catch (InvalidIdentifierException e) {
            throw new InvalidParameterException(e.getMessage(),
                    "use the machine's name as its node-agent reports it; list them with GET /api/v1/machines");
        }
    }

    private static int integer(String name, String raw) {
        String digits = raw.strip();
        try {
            return Integer.parseInt(digits);
        } catch (NumberFormatException e) {
            if (digits.matches("[+-]?[0-9]{1,64}")) {
                throw new InvalidParameterException(name + "=" + raw + " is out of range", "e.g. " + name + "=0");
            }
            throw new InvalidParameterException(name + "=" + raw + " is not a whole number", "e.g. " + name + "=0");
        }
    }
}
