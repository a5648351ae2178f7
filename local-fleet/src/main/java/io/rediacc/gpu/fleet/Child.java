package io.rediacc.gpu.fleet;

import java.nio.file.Path;
import java.time.Duration;

/** Something the fleet started and stops: a child JVM or tool ({@link ChildProcess}) or a real repo daemon ({@link RepoDaemon}). */
interface Child {

    String name();

    /** Recorded for {@code ./fleet down}. */
    long pid();

    boolean alive();

    Path log();

    String tail(int lines);

    void stop(Duration grace);
}
