package io.rediacc.gpu.inventory.repository;

import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;

/** The read model's timestamps ({@code timestamptz}) as the reactive PostgreSQL client passes them. */
final class SqlTimes {

    private SqlTimes() {
    }

    static OffsetDateTime of(Instant instant) {
        return instant == null ? null : OffsetDateTime.ofInstant(instant, ZoneOffset.UTC);
    }

    static Instant instant(OffsetDateTime time) {
        return time == null ? null : time.toInstant();
    }
}
