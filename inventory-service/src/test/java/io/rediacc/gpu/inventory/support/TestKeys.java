package io.rediacc.gpu.inventory.support;

import io.rediacc.gpu.contracts.identity.Identifiers;
import io.rediacc.gpu.contracts.signing.KeyPairFile;
import io.rediacc.gpu.contracts.signing.RecordAuthority;
import io.rediacc.gpu.contracts.signing.RecordSigner;
import io.rediacc.gpu.contracts.signing.SigningKeys;

import java.nio.file.Path;
import java.security.KeyPair;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

import static io.restassured.RestAssured.given;

/**
 * The keys of the tests' machines (registered with the service as rdc machine setup registers them)
 * and grant-service's key (the test profile's {@code inventory.signing.service-key}), which signs tombstones.
 */
public final class TestKeys {

    /** The test profile's {@code inventory.signing.service-key}. */
    public static final Path SERVICE_KEY = Path.of("target/test-grant-service-key.pem");
    private static final Map<String, KeyPair> KEYS = new ConcurrentHashMap<>();
    private static final Set<String> REGISTERED = ConcurrentHashMap.newKeySet();

    private TestKeys() {
    }

    public static KeyPair of(String machine) {
        return KEYS.computeIfAbsent(machine, m -> SigningKeys.generate());
    }

    public static KeyPair service() {
        return KeyPairFile.ensure(SERVICE_KEY).pair();
    }

    /**
     * Registers the machine's key straight into the test database, before the application (and its migrations)
     * run: records on the topic before the service existed are judged with keys registered before it started.
     */
    public static void registerBeforeStart(String machine) {
        var db = io.rediacc.gpu.testsupport.PostgresTestResource.current();
        KeyPair key = of(machine);
        // the schema as a running service left it: the application's own migrations, then the registration
        org.flywaydb.core.Flyway.configure().dataSource(db.jdbcUrl(), db.user(), db.password())
                .locations("classpath:db/migration").load().migrate();
        try (var c = java.sql.DriverManager.getConnection(db.jdbcUrl(), db.user(), db.password());
             var insert = c.prepareStatement("insert into machine_keys values (?, ?, ?, 'test', now())")) {
            insert.setString(1, machine);
            insert.setString(2, SigningKeys.publicPem(key.getPublic()));
            insert.setString(3, SigningKeys.keyId(key.getPublic()));
            insert.executeUpdate();
        } catch (java.sql.SQLException e) {
            throw new IllegalStateException("cannot register " + machine + "'s key in the test database", e);
        }
        REGISTERED.add(machine);
    }

    /** The machine's key, registered with the application under test on first use. */
    public static KeyPair registered(String machine) {
        KeyPair key = of(machine);
        if (REGISTERED.add(machine)) {
            int status = given().auth().oauth2(FleetApi.OPERATOR_TOKEN).contentType("application/json")
                    .body(Map.of("publicKey", SigningKeys.publicPem(key.getPublic())))
                    .put("/api/v1/machines/{m}/key", machine).statusCode();
            if (status != 200) {
                REGISTERED.remove(machine);
                throw new IllegalStateException("registering the key of " + machine + " answered " + status);
            }
        }
        return key;
    }

    /**
     * Signs as the record's rightful author would (contracts' {@link RecordAuthority}): grant-service's key for a
     * tombstone, a grant snapshot or a grant event, else the registered key of the machine its record key names
     * (left unsigned when the key names no machine).
     */
    public static void sign(String topic, String key, Map<String, byte[]> headers, byte[] value) {
        KeyPair by;
        RecordAuthority author = RecordAuthority.of(topic, key, value == null);
        if (author instanceof RecordAuthority.GrantService) {
            by = service();
        } else if (author instanceof RecordAuthority.Machine machine) {
            by = registered(machine.machine());
        } else {
            // a key that names no machine where one must: sign with the machine before a slash, if any (a forger's try)
            String machine = key == null ? null : key.split("/", 2)[0];
            if (machine == null || !Identifiers.isMachine(machine)) {
                return;
            }
            by = registered(machine);
        }
        new RecordSigner(by.getPrivate(), by.getPublic()).sign(topic, key, headers, value);
    }
}
