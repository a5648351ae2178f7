package io.rediacc.gpu.inventory.config;

import io.quarkus.test.junit.QuarkusTest;
import io.rediacc.gpu.inventory.support.FleetResources;
import io.rediacc.gpu.testsupport.JtaContextLeftAlone;
import io.smallrye.context.SmallRyeThreadContext;
import jakarta.inject.Inject;
import org.junit.jupiter.api.Test;

/** No JTA transaction is ever open in inventory-service: its context is left alone (application.properties). */
@QuarkusTest
@FleetResources
class ContextPropagationTest {

    @Inject
    SmallRyeThreadContext injected;

    @Test
    void jtaContextIsLeftAloneAndCdiStillPropagates() {
        JtaContextLeftAlone.assertFor(injected);
    }
}
