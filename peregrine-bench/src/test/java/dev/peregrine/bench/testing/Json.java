package dev.peregrine.bench.testing;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads the benchmark's JSON into Jackson's tree model, strictly: one document, nothing after it. */
public final class Json {
    private static final ObjectMapper MAPPER = new ObjectMapper()
        .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS);

    private Json() {
    }

    /**
     * @param text a JSON document
     * @return its tree
     */
    public static JsonNode parse(final String text) {
        try {
            return MAPPER.readTree(text);
        } catch (final JsonProcessingException ex) {
            throw new IllegalArgumentException("not JSON: " + ex.getOriginalMessage(), ex);
        }
    }

    /**
     * @param file a file holding a JSON document
     * @return its tree
     */
    public static JsonNode read(final Path file) {
        try {
            return parse(Files.readString(file));
        } catch (final IOException ex) {
            throw new UncheckedIOException(ex);
        }
    }
}
