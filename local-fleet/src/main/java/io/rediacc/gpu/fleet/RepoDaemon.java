package io.rediacc.gpu.fleet;

import io.rediacc.gpu.dockerd.Dockerd;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;

/** A repo's real dockerd as a child of the fleet: stopping it stops its containers and unmounts what it left. */
record RepoDaemon(String name, Dockerd daemon) implements Child {

    @Override
    public long pid() {
        return daemon.pid();
    }

    @Override
    public boolean alive() {
        return daemon.alive();
    }

    @Override
    public Path log() {
        return daemon.log();
    }

    @Override
    public String tail(int lines) {
        try {
            List<String> all = Files.readAllLines(log());
            return String.join("\n", all.subList(Math.max(0, all.size() - lines), all.size()));
        } catch (IOException e) {
            return "(no log: " + e.getMessage() + ")";
        }
    }

    @Override
    public void stop(Duration grace) {
        daemon.close();
    }
}
