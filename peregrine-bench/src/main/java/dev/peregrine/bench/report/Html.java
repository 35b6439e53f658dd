package dev.peregrine.bench.report;

/**
 * HTML escaping for the report.
 */
public final class Html {
    private Html() {
    }

    /**
     * Escapes text for an HTML element or a double-quoted attribute.
     *
     * @param text the text, or null (empty)
     * @return the escaped text
     */
    public static String escape(final String text) {
        if (text == null) {
            return "";
        }
        final StringBuilder out = new StringBuilder(text.length());
        for (int i = 0; i < text.length(); i++) {
            final char c = text.charAt(i);
            switch (c) {
                case '<' -> out.append("&lt;");
                case '>' -> out.append("&gt;");
                case '&' -> out.append("&amp;");
                case '"' -> out.append("&quot;");
                case '\'' -> out.append("&#39;");
                default -> out.append(c);
            }
        }
        return out.toString();
    }
}
