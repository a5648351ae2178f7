package io.rediacc.gpu.cli.config;

import io.rediacc.gpu.cli.failure.ExitCodes;
import io.rediacc.gpu.cli.failure.Failure;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class ConnectionSettingsTest {

    @TempDir
    Path home;

    @Test
    void withNothingConfiguredTheLocalDefaultsApply() {
        ConnectionSettings s = resolve(options(null, null, null, null), Map.of("HOME", home.toString()));

        assertThat(s.grantUrl()).hasToString("http://localhost:8081");
        assertThat(s.inventoryUrl()).hasToString("http://localhost:8082");
        assertThat(s.token()).isNull();
    }

    @Test
    void theConfigFileInTheHomeDirectoryIsRead() throws IOException {
        Path file = home.resolve(".config/rdc/config.yaml");
        Files.createDirectories(file.getParent());
        Files.writeString(file, "grantUrl: https://grants.example.com/\ninventoryUrl: https://inventory.example.com\ntoken: t0k\n");

        ConnectionSettings s = resolve(options(null, null, null, null), Map.of("HOME", home.toString()));

        assertThat(s.grantUrl()).hasToString("https://grants.example.com");
        assertThat(s.inventoryUrl()).hasToString("https://inventory.example.com");
        assertThat(s.token()).isEqualTo("t0k");
    }

    @Test
    void environmentBeatsTheConfigFileAndOptionsBeatTheEnvironment() throws IOException {
        Path file = home.resolve("rdc.yaml");
        Files.writeString(file, "grantUrl: http://from-file:1\ninventoryUrl: http://from-file:2\ntoken: file-token\n");
        Map<String, String> env = Map.of("RDC_CONFIG", file.toString(), "RDC_GRANT_URL", "http://from-env:1",
                "RDC_TOKEN", "env-token");

        ConnectionSettings fromEnv = resolve(options(null, null, null, null), env);
        assertThat(fromEnv.grantUrl()).hasToString("http://from-env:1");
        assertThat(fromEnv.inventoryUrl()).hasToString("http://from-file:2");
        assertThat(fromEnv.token()).isEqualTo("env-token");

        ConnectionSettings fromServer = resolve(options("http://gateway:8080/gpu", null, null, null), env);
        assertThat(fromServer.grantUrl()).hasToString("http://gateway:8080/gpu");
        assertThat(fromServer.inventoryUrl()).hasToString("http://gateway:8080/gpu");

        ConnectionSettings specific = resolve(options("http://gateway:8080", "http://grants:1", null, null), env);
        assertThat(specific.grantUrl()).hasToString("http://grants:1");
        assertThat(specific.inventoryUrl()).hasToString("http://gateway:8080");
    }

    @Test
    void xdgConfigHomeIsWhereTheConfigFileLives() throws IOException {
        Path file = home.resolve("xdg/rdc/config.yaml");
        Files.createDirectories(file.getParent());
        Files.writeString(file, "inventoryUrl: http://xdg:2\n");

        ConnectionSettings s = resolve(options(null, null, null, null),
                Map.of("XDG_CONFIG_HOME", home.resolve("xdg").toString(), "HOME", home.toString()));

        assertThat(s.inventoryUrl()).hasToString("http://xdg:2");
    }

    @Test
    void aTypoInTheConfigFileIsAnErrorNotASilentDefault() throws IOException {
        Path file = home.resolve("typo.yaml");
        Files.writeString(file, "grantURL: http://x:1\n");

        assertThatThrownBy(() -> resolve(options(null, null, null, file), Map.of()))
                .isInstanceOf(Failure.class)
                .hasMessage("config file " + file + " has unknown key(s) [grantURL]; known keys: grantUrl, inventoryUrl, token, machines")
                .satisfies(e -> assertThat(((Failure) e).exitCode()).isEqualTo(ExitCodes.USAGE));
    }

    @Test
    void machinesCarryTheirSshAddressAndATypoThereIsAnErrorToo() throws IOException {
        Path file = home.resolve("machines.yaml");
        Files.writeString(file, "machines:\n  gpu-1:\n    host: root@10.0.0.5:2222\n    identity: /k\n");
        assertThat(ConnectionSettings.configFile(file, Map.of()).machines().get("gpu-1"))
                .isEqualTo(new ConfigFile.MachineEntry("root@10.0.0.5:2222", "/k", null, null, null));
        Files.writeString(file, "machines:\n  gpu-1:\n    hots: root@10.0.0.5\n");
        assertThatThrownBy(() -> ConnectionSettings.configFile(file, Map.of()))
                .isInstanceOf(Failure.class).hasMessageContaining("machines.gpu-1 has unknown key(s) [hots]");
    }

    @Test
    void aNamedConfigFileMustExist() {
        Path missing = home.resolve("missing.yaml");

        assertThatThrownBy(() -> resolve(options(null, null, null, missing), Map.of()))
                .hasMessage("config file " + missing + " does not exist");
    }

    @Test
    void aUrlThatIsNotHttpIsRefusedWithAnExample() {
        assertThatThrownBy(() -> resolve(options(null, "localhost:8081", null, null), Map.of("HOME", home.toString())))
                .isInstanceOf(Failure.class)
                .hasMessage("grant-service URL \"localhost:8081\" is invalid: expected http(s)://host[:port][/prefix], "
                        + "e.g. http://localhost:8081");
    }

    private static ConnectionSettings resolve(ConnectionSettings.Options options, Map<String, String> env) {
        return ConnectionSettings.resolve(options, env);
    }

    private static ConnectionSettings.Options options(String server, String grant, String inventory, Path config) {
        return new ConnectionSettings.Options(server, grant, inventory, config);
    }
}
