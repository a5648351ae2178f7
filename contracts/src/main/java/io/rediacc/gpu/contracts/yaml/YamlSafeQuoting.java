package io.rediacc.gpu.contracts.yaml;

import com.fasterxml.jackson.dataformat.yaml.util.StringQuotingChecker;
import org.yaml.snakeyaml.nodes.NodeId;
import org.yaml.snakeyaml.nodes.Tag;
import org.yaml.snakeyaml.resolver.Resolver;

/**
 * Quotes every string a YAML 1.1 reader would load as something else. Jackson's minimal quoting
 * knows YAML 1.2's plain scalars, but PyYAML's {@code safe_load} and SnakeYAML read YAML 1.1:
 * {@code pciBusId: 0000:18:00.0} loads there as the sexagesimal float 1080.0, {@code on} as true.
 * Asking a YAML 1.1 resolver what it would make of the plain scalar is the exact test.
 */
final class YamlSafeQuoting extends StringQuotingChecker.Default {

    private static final long serialVersionUID = 1L;
    private static final Resolver YAML_1_1 = new Resolver();

    @Override
    public boolean needToQuoteName(String name) {
        return super.needToQuoteName(name) || readAsOtherThanText(name);
    }

    @Override
    public boolean needToQuoteValue(String value) {
        return super.needToQuoteValue(value) || readAsOtherThanText(value);
    }

    static boolean readAsOtherThanText(String plain) {
        return !Tag.STR.equals(YAML_1_1.resolve(NodeId.scalar, plain, true));
    }
}
