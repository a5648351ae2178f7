package io.rediacc.gpu.agent.detect;

import io.rediacc.gpu.agent.host.HostRoot;

import java.io.BufferedReader;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * Product names from the machine's PCI ID database ({@code pci.ids}, shipped by pciutils/hwdata),
 * for cards whose vendor tool does not name them. Read lazily, once, only for the vendors asked.
 */
public final class PciIds {

    static final List<String> LOCATIONS = List.of("/usr/share/misc/pci.ids", "/usr/share/hwdata/pci.ids",
            "/usr/share/pci.ids");

    private final HostRoot host;
    private final Map<Integer, Map<Integer, String>> byVendor = new HashMap<>();

    public PciIds(HostRoot host) {
        this.host = host;
    }

    /** The device's name as the database writes it, e.g. {@code Aldebaran/MI200 [Instinct MI210]}. */
    public Optional<String> deviceName(int vendor, int device) {
        return Optional.ofNullable(byVendor.computeIfAbsent(vendor, this::load).get(device));
    }

    private Map<Integer, String> load(int vendor) {
        Map<Integer, String> devices = new HashMap<>();
        String vendorHex = String.format(Locale.ROOT, "%04x", vendor);
        for (String location : LOCATIONS) {
            Path file = host.path(location);
            if (!Files.isRegularFile(file)) {
                continue;
            }
            try (BufferedReader r = Files.newBufferedReader(file, StandardCharsets.ISO_8859_1)) {
                boolean inVendor = false;
                String line;
                while ((line = r.readLine()) != null) {
                    if (line.isEmpty() || line.startsWith("#")) {
                        continue;
                    }
                    if (!line.startsWith("\t")) {
                        if (inVendor) {
                            break;
                        }
                        inVendor = line.toLowerCase(Locale.ROOT).startsWith(vendorHex + "  ");
                    } else if (inVendor && !line.startsWith("\t\t") && line.length() > 7) {
                        try {
                            devices.put(Integer.parseInt(line.substring(1, 5), 16), line.substring(5).trim());
                        } catch (NumberFormatException ignored) {
                            // not a device line
                        }
                    }
                }
            } catch (IOException ignored) {
                // try the next location
            }
            return devices;
        }
        return devices;
    }
}
