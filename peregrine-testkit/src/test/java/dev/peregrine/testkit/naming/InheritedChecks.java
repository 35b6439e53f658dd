package dev.peregrine.testkit.naming;

/** Misnamed: declares no test method itself but inherits one. */
class InheritedChecks extends AbstractChecks {
}
