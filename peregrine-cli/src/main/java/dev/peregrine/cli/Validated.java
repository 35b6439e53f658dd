package dev.peregrine.cli;

/**
 * A command (or a mixin) whose options must agree with each other. {@link Cli} calls {@link #validate()}
 * after parsing and before the command runs: nothing has been started yet.
 */
public interface Validated {
    /**
     * Checks the options together.
     *
     * @throws picocli.CommandLine.ParameterException naming the option, its value and what is accepted
     */
    void validate();
}
