package io.rediacc.gpu.inventory.service;

import java.time.Instant;
import java.time.temporal.ChronoUnit;

/** Time values as PostgreSQL keeps them. */
public final class Timestamps {

    private Timestamps() {
    }

    /**
     * PostgreSQL keeps microseconds; comparing an incoming nanosecond instant with a stored one
     * would make a replayed record look newer than itself.
     */
    public static Instant stored(Instant instant) {
        return instant == null ? null : instant.truncatedTo(ChronoUnit.MICROS);
    }

    public static Instant latest(Instant a, Instant b) {
        if (a == null) {
            return b;
        }
        if (b == null) {
            return a;
        }
        return a.isAfter(b) ? a : b;
    }
}
