package dev.peregrine.cli;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The values a numeric option accepts (each element, for a list). {@link Cli} checks every numeric option
 * after parsing and before the command runs; an option without this annotation accepts 0 and more, finite.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface Range {
    /** The longest duration an option in seconds accepts: a day. */
    double DAY = 86_400;
    /** The highest rate an option in messages per second accepts: one a nanosecond, the clock's finest step. */
    double PER_NANOSECOND = 1_000_000_000;

    /**
     * The least value accepted.
     *
     * @return the minimum, inclusive
     */
    double min() default 0;

    /**
     * The greatest value accepted.
     *
     * @return the maximum, inclusive unless {@link #maxExclusive()}
     */
    double max() default Double.MAX_VALUE;

    /**
     * Whether {@link #max()} itself is refused.
     *
     * @return true for a half-open range
     */
    boolean maxExclusive() default false;

    /**
     * What a special value means, shown with the accepted range, e.g. {@code "0 for none"}.
     *
     * @return the note, or empty
     */
    String note() default "";
}
