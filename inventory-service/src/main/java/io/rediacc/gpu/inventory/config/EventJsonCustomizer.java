package io.rediacc.gpu.inventory.config;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quarkus.jackson.ObjectMapperCustomizer;
import io.rediacc.gpu.contracts.events.EventJson;
import jakarta.inject.Singleton;

/** The REST answers use the same JSON conventions as the events (ISO times, absent instead of null). */
@Singleton
public class EventJsonCustomizer implements ObjectMapperCustomizer {

    @Override
    public void customize(ObjectMapper mapper) {
        EventJson.configure(mapper);
    }
}
