package io.rediacc.gpu.agent.cli;

import org.eclipse.microprofile.config.ConfigProvider;
import picocli.CommandLine;

/** {@code node-agent --version}: the application version the build stamped. */
public class AgentVersion implements CommandLine.IVersionProvider {
    @Override
    public String[] getVersion() {
        return new String[] {"node-agent " + ConfigProvider.getConfig()
                .getOptionalValue("quarkus.application.version", String.class).orElse("dev")};
    }
}
