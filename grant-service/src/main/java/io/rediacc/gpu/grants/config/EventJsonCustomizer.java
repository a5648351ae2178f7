package io.rediacc.gpu.grants.config;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.jackson.ObjectMapperCustomizer;
import io.rediacc.gpu.contracts.json.StrictJson;
import jakarta.inject.Singleton;

/**
 * REST bodies follow the JSON conventions of the events (ISO times, absent instead of null) and are
 * read strictly ({@link StrictJson#configureRestBodies}): an unknown field, content after the body,
 * a key twice ({@code "device"} twice: which one was meant?), a BOM or {@code "exclusive": 1} is
 * 400 malformed-body, never a guess.
 */
@Singleton
public class EventJsonCustomizer implements ObjectMapperCustomizer {

    @Override
    public void customize(ObjectMapper mapper) {
        StrictJson.configureRestBodies(mapper);
    }
}
