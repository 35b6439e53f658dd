/**
 * Fixtures for {@code TestClassNamesTest}: classes with test methods, some named so that surefire would skip
 * them. The misnamed ones never run; they exist to be found.
 */
package dev.peregrine.testkit.naming;
