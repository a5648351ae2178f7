package io.rediacc.gpu.grants.repository;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class SchemaInitializerTest {

    @Test
    void everySchemaStatementIsIdempotent() {
        assertThat(SchemaInitializer.statements())
                .hasSize(19)
                // DROP NOT NULL on a nullable column changes nothing: idempotent too
                .allSatisfy(s -> assertThat(s).containsAnyOf("CREATE TABLE IF NOT EXISTS", "CREATE INDEX IF NOT EXISTS",
                        "ADD COLUMN IF NOT EXISTS", "DROP NOT NULL"))
                .noneMatch(s -> s.contains("--"));
    }
}
