package io.rediacc.gpu.api.schema;

import io.quarkus.flyway.FlywayConfigurationCustomizer;
import jakarta.inject.Singleton;
import org.flywaydb.core.api.configuration.FluentConfiguration;

/** Adds {@link MigrationTurns} to the Flyway of each service that migrates at start. */
@Singleton
public class MigrationTurnsCustomizer implements FlywayConfigurationCustomizer {

    @Override
    public void customize(FluentConfiguration configuration) {
        configuration.callbacks(new MigrationTurns());
    }
}
