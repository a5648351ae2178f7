package io.rediacc.gpu.agent;

import io.rediacc.gpu.agent.inventory.InventoryAssembler;
import io.rediacc.gpu.agent.setup.SetupService;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Produces;
import org.eclipse.microprofile.config.inject.ConfigProperty;

import java.time.Clock;

/** Wires the plain classes of the agent as CDI beans (they stay constructible without CDI for tests and tools). */
@ApplicationScoped
public class AgentBeans {

    @Produces
    @ApplicationScoped
    InventoryAssembler inventoryAssembler(@ConfigProperty(name = "quarkus.application.version", defaultValue = "dev") String version) {
        return new InventoryAssembler(version, Clock.systemUTC());
    }

    @Produces
    @ApplicationScoped
    SetupService setupService(InventoryAssembler assembler) {
        return new SetupService(assembler);
    }
}
