package io.rediacc.gpu.agent.detect;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads nvidia-smi's {@code --format=csv,noheader[,nounits]} output: one line per GPU, values
 * separated by {@code ", "}, unavailable values in brackets ({@code [N/A]},
 * {@code [Not Supported]}, {@code [Insufficient Permissions]}).
 */
public final class NvidiaSmiCsv {

    /** The query the agent runs; {@link #parseGpus} expects exactly these columns. */
    public static final String GPU_QUERY = "index,uuid,name,driver_version,memory.total,pci.bus_id";
    public static final String MIG_QUERY = "index,mig.mode.current";

    /** Parsed GPUs and the lines that could not be read, with why. */
    public record Parsed(List<NvidiaGpu> gpus, List<String> problems) {
    }

    private NvidiaSmiCsv() {
    }

    public static Parsed parseGpus(String csv) {
        List<NvidiaGpu> gpus = new ArrayList<>();
        List<String> problems = new ArrayList<>();
        for (String line : csv.split("\\R")) {
            if (line.isBlank()) {
                continue;
            }
            String[] f = fields(line);
            if (f.length < 6) {
                problems.add("nvidia-smi line has " + f.length + " values, expected 6 (" + GPU_QUERY + "): " + line);
                continue;
            }
            if (f.length > 6) {
                // a name containing ", " was split: the name is everything between uuid and the last three values
                String name = String.join(", ", Arrays.copyOfRange(f, 2, f.length - 3));
                f = new String[] {f[0], f[1], name, f[f.length - 3], f[f.length - 2], f[f.length - 1]};
            }
            Integer index = integer(f[0]);
            if (index == null) {
                problems.add("nvidia-smi line has no GPU index: " + line);
                continue;
            }
            String bus = value(f[5]);
            gpus.add(new NvidiaGpu(index, value(f[1]), value(f[2]), value(f[3]), mebibytes(f[4]),
                    bus == null ? null : PciAddress.parse(bus).map(PciAddress::toString).orElse(bus), null));
        }
        return new Parsed(gpus, problems);
    }

    /** MIG mode per GPU index from the {@link #MIG_QUERY} output; GPUs without MIG report {@code [N/A]} and are left out. */
    public static Map<Integer, String> parseMigModes(String csv) {
        Map<Integer, String> modes = new LinkedHashMap<>();
        for (String line : csv.split("\\R")) {
            String[] f = fields(line);
            if (f.length >= 2) {
                Integer index = integer(f[0]);
                String mode = value(f[1]);
                if (index != null && mode != null) {
                    modes.put(index, mode);
                }
            }
        }
        return modes;
    }

    private static String[] fields(String line) {
        String[] f = line.split(",", -1);
        for (int i = 0; i < f.length; i++) {
            f[i] = f[i].trim();
        }
        return f;
    }

    /** A value, or null for nvidia-smi's bracketed "no value" markers and empty fields. */
    static String value(String field) {
        String v = field.trim();
        if (v.isEmpty() || (v.startsWith("[") && v.endsWith("]"))) {
            return null;
        }
        return v;
    }

    private static Integer integer(String field) {
        String v = value(field);
        try {
            return v == null ? null : Integer.valueOf(v);
        } catch (NumberFormatException e) {
            return null;
        }
    }

    /** {@code 81559} (nounits) or {@code 81559 MiB}. */
    private static Long mebibytes(String field) {
        String v = value(field);
        if (v == null) {
            return null;
        }
        String digits = v.replaceAll("\\s*MiB$", "");
        try {
            return Long.valueOf(digits);
        } catch (NumberFormatException e) {
            return null;
        }
    }
}
