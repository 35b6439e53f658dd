package dev.peregrine.log;

/** How much a record matters; written as its name in the file. */
public enum LogLevel {
    /** Detail: every message. */
    DEBUG,
    /** The normal course: a connection opened or closed. */
    INFO,
    /** Something went wrong with one connection or server. */
    WARN,
    /** Something went wrong with the whole. */
    ERROR
}
