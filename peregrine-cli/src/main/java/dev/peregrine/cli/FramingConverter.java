package dev.peregrine.cli;

import dev.peregrine.tcp.Framing;

import picocli.CommandLine;

/**
 * Reads a {@code --framing} value with {@link Framing#parse}; picocli reports the message of a bad one.
 */
public final class FramingConverter implements CommandLine.ITypeConverter<Framing> {
    /** Creates the converter. */
    public FramingConverter() {
    }

    @Override
    public Framing convert(final String value) {
        try {
            return Framing.parse(value);
        } catch (final IllegalArgumentException ex) {
            throw new CommandLine.TypeConversionException(ex.getMessage());
        }
    }
}
