package io.rediacc.gpu.grants.repository;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SchemaInitializerTest {

    @Test
    void everySchemaStatementIsIdempotent() {
        assertThat(SchemaInitializer.statements())
                .hasSize(8)
                .allSatisfy(s -> assertThat(s).containsAnyOf("CREATE TABLE IF NOT EXISTS", "CREATE INDEX IF NOT EXISTS"))
                .noneMatch(s -> s.contains("--"));
    }
}
