package io.rediacc.gpu.agent.detect;

import java.util.Locale;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A PCI function address. nvidia-smi writes {@code 00000000:07:00.0} (8-digit domain), sysfs
 * {@code 0000:07:00.0}, KFD a domain and a {@code location_id}; this one type compares them all and
 * prints the sysfs form.
 */
public record PciAddress(int domain, int bus, int device, int function) {

    private static final Pattern FORM = Pattern.compile(
            "(?:([0-9a-fA-F]{1,8}):)?([0-9a-fA-F]{1,2}):([0-9a-fA-F]{1,2})\\.([0-7])");

    public static Optional<PciAddress> parse(String text) {
        if (text == null) {
            return Optional.empty();
        }
        Matcher m = FORM.matcher(text.trim());
        if (!m.matches()) {
            return Optional.empty();
        }
        int domain = m.group(1) == null ? 0 : (int) Long.parseLong(m.group(1), 16);
        return Optional.of(new PciAddress(domain, Integer.parseInt(m.group(2), 16), Integer.parseInt(m.group(3), 16),
                Integer.parseInt(m.group(4))));
    }

    /** From KFD topology: {@code location_id} packs bus (bits 8-15), device (3-7) and function (0-2). */
    public static PciAddress fromKfd(long domain, long locationId) {
        return new PciAddress((int) domain, (int) ((locationId >> 8) & 0xff), (int) ((locationId >> 3) & 0x1f),
                (int) (locationId & 0x7));
    }

    @Override
    public String toString() {
        return String.format(Locale.ROOT, "%04x:%02x:%02x.%x", domain, bus, device, function);
    }
}
