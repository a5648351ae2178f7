package io.rediacc.gpu.grants.testing;

import io.quarkus.test.junit.QuarkusTestProfile;

import java.util.Map;

/**
 * One Quarkus start for two tests that each need an application of their own: authentication off
 * ({@code api.auth.mode=none}, AuthenticationOffTest) and a start on the former SchemaInitializer's
 * database (InitializerDatabaseStartTest's resource). Neither setting touches what the other test looks at
 * (the initializer test reads its grant without caring who reads; the no-auth test writes to machines of its
 * own, on whatever schema Flyway made), so they share one start instead of two. A class using it names this
 * profile and the same two resources, KafkaTestResource and InitializerDatabaseStartTest.InitializerDatabase:
 * Quarkus restarts the application when either differs.
 */
public class NoAuthOnInitializerDatabase implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("api.auth.mode", "none");
    }
}
