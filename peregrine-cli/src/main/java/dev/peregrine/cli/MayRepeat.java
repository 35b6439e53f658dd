package dev.peregrine.cli;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * The items of this comma-separated option are places, not a set, and may repeat ({@code --cpu CLIENT,RESPONDER}
 * may pin both threads to one CPU). {@link Cli} refuses a repeated item in every other list: it would run the same
 * measurement again.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.FIELD)
public @interface MayRepeat {
}
