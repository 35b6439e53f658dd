package dev.peregrine.bench.report;

import java.util.ArrayList;
import java.util.List;

/**
 * A table of text cells, rendered as aligned text for the terminal and as HTML for the report. A row of
 * one cell is a group heading (e.g. the path {@code tcp}).
 */
public final class Table {
    private final String title;
    private final List<String> headers;
    private final List<List<String>> rows = new ArrayList<>();
    private final List<String> notes = new ArrayList<>();

    /**
     * Creates an empty table.
     *
     * @param title its title
     * @param headers column headings
     */
    public Table(final String title, final List<String> headers) {
        this.title = title;
        this.headers = List.copyOf(headers);
    }

    /**
     * Adds a row.
     *
     * @param cells one cell per column
     * @return this
     */
    public Table row(final List<String> cells) {
        if (cells.size() != headers.size()) {
            throw new IllegalArgumentException("cells=" + cells.size() + " headers=" + headers.size());
        }
        rows.add(List.copyOf(cells));
        return this;
    }

    /**
     * Adds a group heading.
     *
     * @param heading the text
     * @return this
     */
    public Table group(final String heading) {
        rows.add(List.of(heading));
        return this;
    }

    /**
     * Adds a note printed under the table.
     *
     * @param note the text
     * @return this
     */
    public Table note(final String note) {
        notes.add(note);
        return this;
    }

    /**
     * The title.
     *
     * @return the title
     */
    public String title() {
        return title;
    }

    /**
     * The rows (a group heading is a row of one cell).
     *
     * @return the rows
     */
    public List<List<String>> rows() {
        return rows;
    }

    /**
     * As aligned text.
     *
     * @return lines ending in newlines
     */
    public String toText() {
        final int[] widths = new int[headers.size()];
        for (int i = 0; i < widths.length; i++) {
            widths[i] = headers.get(i).length();
        }
        for (final List<String> row : rows) {
            if (row.size() == headers.size()) {
                for (int i = 0; i < widths.length; i++) {
                    widths[i] = Math.max(widths[i], row.get(i).length());
                }
            }
        }
        final StringBuilder out = new StringBuilder(title).append('\n');
        line(out, headers, widths);
        int total = 0;
        for (final int width : widths) {
            total += width + 2;
        }
        out.append("-".repeat(Math.max(0, total - 2))).append('\n');
        for (final List<String> row : rows) {
            if (row.size() == 1 && headers.size() > 1) {
                out.append("[").append(row.get(0)).append("]\n");
            } else {
                line(out, row, widths);
            }
        }
        for (final String note : notes) {
            out.append("  ").append(note).append('\n');
        }
        return out.toString();
    }

    private static void line(final StringBuilder out, final List<String> cells, final int[] widths) {
        final StringBuilder line = new StringBuilder();
        for (int i = 0; i < cells.size(); i++) {
            final String cell = cells.get(i);
            final boolean numeric = !cell.isEmpty() && (Character.isDigit(cell.charAt(0)) || cell.equals("n/a"));
            final String pad = " ".repeat(widths[i] - cell.length());
            line.append(i == 0 ? "" : "  ").append(numeric && i > 0 ? pad + cell : cell + pad);
        }
        out.append(line.toString().stripTrailing()).append('\n');
    }

    /**
     * As an HTML table with its title as a heading and its notes under it.
     *
     * @return the HTML
     */
    public String toHtml() {
        final StringBuilder out = new StringBuilder("<h3>").append(Html.escape(title)).append("</h3>\n<table>\n<tr>");
        for (final String header : headers) {
            out.append("<th>").append(Html.escape(header)).append("</th>");
        }
        out.append("</tr>\n");
        for (final List<String> row : rows) {
            if (row.size() == 1 && headers.size() > 1) {
                out.append("<tr class=\"group\"><td colspan=\"").append(headers.size()).append("\">")
                    .append(Html.escape(row.get(0))).append("</td></tr>\n");
            } else {
                out.append("<tr>");
                for (final String cell : row) {
                    final boolean numeric = !cell.isEmpty() && Character.isDigit(cell.charAt(0));
                    out.append(numeric ? "<td class=\"num\">" : "<td>").append(Html.escape(cell)).append("</td>");
                }
                out.append("</tr>\n");
            }
        }
        out.append("</table>\n");
        for (final String note : notes) {
            out.append("<p class=\"note\">").append(Html.escape(note)).append("</p>\n");
        }
        return out.toString();
    }
}
