package io.rediacc.gpu.gate.policy;

import static io.rediacc.gpu.gate.policy.GoJsonTypes.array;
import static io.rediacc.gpu.gate.policy.GoJsonTypes.integer;
import static io.rediacc.gpu.gate.policy.GoJsonTypes.object;
import static io.rediacc.gpu.gate.policy.GoJsonTypes.string;
import static io.rediacc.gpu.gate.policy.GoJsonTypes.stringMap;
import static io.rediacc.gpu.gate.policy.GoJsonTypes.strings;

import io.rediacc.gpu.contracts.cdi.CdiName;
import io.rediacc.gpu.contracts.cdi.InvalidCdiNameException;
import io.rediacc.gpu.gate.policy.JsonValue.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code HostConfig.DeviceRequests}: the one door to a device. Only the exact shape
 * {@code docker run --device <cdi name>} sends is accepted — {@code Driver} exactly {@code "cdi"},
 * {@code Count} 0, no {@code Options}; {@code Capabilities} may be anything (the daemon's CDI driver
 * ignores them, and compose's {@code driver: cdi} + {@code device_ids} + {@code capabilities: [gpu]}
 * sends them) — and its names are collected for the
 * grant check. Every other request ({@code --gpus}, compose {@code deploy...devices}, other
 * drivers) is refused whether or not anything is granted.
 */
final class DeviceRequestRules {

    static final String CDI_DRIVER = "cdi";

    private DeviceRequestRules() {
    }

    /** Checks every request under {@code path}; adds the CDI names asked for to {@code requested}. */
    static void check(JsonValue deviceRequests, String path, Set<String> requested) {
        List<JsonValue> requests = array(deviceRequests, path);
        for (int i = 0; i < requests.size(); i++) {
            checkOne(requests.get(i), path + "[" + i + "]", requested);
        }
    }

    private static void checkOne(JsonValue element, String path, Set<String> requested) {
        // A JSON null element decodes to a zero DeviceRequest (driver ""), which is refused below.
        JsonObject request = object(element, path);
        String driver = request == null ? "" : string(request.field("Driver", path + ".Driver"), path + ".Driver");
        long count = request == null ? 0 : integer(request.field("Count", path + ".Count"), path + ".Count");
        List<String> ids = request == null ? List.of() : strings(request.field("DeviceIDs", path + ".DeviceIDs"), path + ".DeviceIDs");
        // Read (and type-checked) for the refusal messages; the daemon's CDI driver ignores them.
        List<List<String>> capabilities = request == null ? List.of() : capabilities(request.field("Capabilities", path + ".Capabilities"), path + ".Capabilities");
        Map<String, String> options = request == null ? Map.of() : stringMap(request.field("Options", path + ".Options"), path + ".Options");

        if (!driver.equals(CDI_DRIVER)) {
            List<String> flat = capabilities.stream().flatMap(List::stream).toList();
            boolean gpuSpelling = driver.isEmpty() || driver.equalsIgnoreCase("nvidia") || flat.stream().anyMatch(c -> c.equalsIgnoreCase("gpu"));
            if (gpuSpelling) {
                throw PolicyRefusal.forbidden(RefusalMessages.RULE_GPUS, deviceLabel(driver, ids),
                        RefusalMessages.gpusRequest(driver, count, ids, flat));
            }
            throw PolicyRefusal.forbidden(RefusalMessages.RULE_DEVICE_DRIVER, deviceLabel(driver, ids),
                    RefusalMessages.deviceDriver(driver, ids));
        }
        String shape = null;
        if (count != 0) {
            shape = "Count " + count;
        } else if (!options.isEmpty()) {
            shape = "Options " + options.keySet();
        }
        if (shape != null) {
            throw PolicyRefusal.forbidden(RefusalMessages.RULE_CDI_SHAPE, ids.isEmpty() ? null : ids.get(0),
                    RefusalMessages.cdiShape(shape, ids));
        }
        for (int i = 0; i < ids.size(); i++) {
            String id = ids.get(i);
            try {
                CdiName.parse(id);
            } catch (InvalidCdiNameException e) {
                throw PolicyRefusal.badRequest(RefusalMessages.RULE_CDI_INVALID,
                        RefusalMessages.invalidCdiName(path + ".DeviceIDs[" + i + "]", id, e.getMessage()));
            }
            // The runtime resolves the string as sent, so the grant is checked on that exact string.
            requested.add(id);
        }
    }

    /** Go {@code [][]string}: an OR list of AND lists; a null inner list is an empty one. */
    private static List<List<String>> capabilities(JsonValue v, String path) {
        List<JsonValue> outer = array(v, path);
        List<List<String>> out = new ArrayList<>(outer.size());
        for (int i = 0; i < outer.size(); i++) {
            out.add(strings(outer.get(i), path + "[" + i + "]"));
        }
        return out;
    }

    private static String deviceLabel(String driver, List<String> ids) {
        if (!ids.isEmpty()) {
            return ids.get(0);
        }
        return driver.isEmpty() ? "gpu" : driver;
    }
}
