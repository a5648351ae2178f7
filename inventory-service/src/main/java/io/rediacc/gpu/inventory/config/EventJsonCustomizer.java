package io.rediacc.gpu.inventory.config;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.jackson.ObjectMapperCustomizer;
import io.rediacc.gpu.contracts.json.StrictJson;
import jakarta.inject.Singleton;

/**
 * The REST answers use the same JSON conventions as the events (ISO times, absent instead of null);
 * request bodies are read as grant-service reads them ({@link StrictJson#configureRestBodies}): an
 * unknown field, content after the body, a key twice, a BOM or a coerced scalar is 400 malformed-body.
 */
@Singleton
public class EventJsonCustomizer implements ObjectMapperCustomizer {

    @Override
    public void customize(ObjectMapper mapper) {
        StrictJson.configureRestBodies(mapper);
    }
}
