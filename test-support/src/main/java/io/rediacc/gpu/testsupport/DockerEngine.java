package io.rediacc.gpu.testsupport;

import java.nio.file.Files;
import java.nio.file.Path;

/** Whether a Docker engine (not just the CLI) is reachable, so Testcontainers may be used. */
final class DockerEngine {

    private DockerEngine() {
    }

    static boolean available() {
        String host = System.getenv("DOCKER_HOST");
        if ((host == null || host.startsWith("unix://")) && !Files.exists(Path.of(
                host == null ? "/var/run/docker.sock" : host.substring("unix://".length())))) {
            return false; // nothing to ask; avoid Testcontainers' slow discovery
        }
        try {
            return org.testcontainers.DockerClientFactory.instance().isDockerAvailable();
        } catch (Throwable e) {
            return false;
        }
    }
}
