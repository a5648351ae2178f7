package io.rediacc.gpu.cli.output;

import java.io.PrintWriter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/** Columns aligned with two spaces between them, like kubectl and docker print tables. */
public final class Table {

    private final List<String> header;
    private final boolean printHeader;
    private final List<List<String>> rows = new ArrayList<>();

    public Table(String... header) {
        this(true, header);
    }

    /** @param printHeader false for {@code --no-headers}: the columns are sized as with the header, which is left out */
    public Table(boolean printHeader, String... header) {
        this.header = List.of(header);
        this.printHeader = printHeader;
    }

    public Table row(Object... cells) {
        List<String> row = new ArrayList<>();
        for (Object cell : cells) {
            row.add(cell == null ? "-" : String.valueOf(cell));
        }
        rows.add(row);
        return this;
    }

    public boolean isEmpty() {
        return rows.isEmpty();
    }

    public void print(PrintWriter out) {
        int[] widths = new int[header.size()];
        for (int i = 0; i < widths.length; i++) {
            widths[i] = header.get(i).length();
        }
        for (List<String> row : rows) {
            for (int i = 0; i < widths.length && i < row.size(); i++) {
                widths[i] = Math.max(widths[i], row.get(i).length());
            }
        }
        if (printHeader) {
            line(out, header, widths);
        }
        rows.forEach(row -> line(out, row, widths));
        out.flush();
    }

    private static void line(PrintWriter out, List<String> cells, int[] widths) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < widths.length; i++) {
            String cell = i < cells.size() ? cells.get(i) : "";
            line.append(cell);
            if (i < widths.length - 1) {
                char[] pad = new char[widths[i] - cell.length() + 2];
                Arrays.fill(pad, ' ');
                line.append(pad);
            }
        }
        out.println(line.toString().stripTrailing());
    }
}
