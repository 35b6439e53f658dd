package dev.peregrine.mold;

import dev.peregrine.counters.Counter;
import dev.peregrine.counters.CounterTypes;
import dev.peregrine.counters.CountersManager;

/** The counters of one {@link MoldUDP64Subscriber}, copied from its fields once per duty cycle. */
final class MoldUDP64SubscriberCounters {
    private final Counter nextExpected;
    private final Counter gaps;
    private final Counter requests;
    private final Counter recovered;
    private final Counter duplicates;
    private final Counter malformed;
    private final Counter state;
    private final Counter answersFromStrangers;

    MoldUDP64SubscriberCounters(final CountersManager manager, final String label) {
        this.nextExpected = manager.allocate(CounterTypes.MOLD_NEXT_EXPECTED, label);
        this.gaps = manager.allocate(CounterTypes.MOLD_GAPS, label);
        this.requests = manager.allocate(CounterTypes.MOLD_REQUESTS, label);
        this.recovered = manager.allocate(CounterTypes.MOLD_RECOVERED, label);
        this.duplicates = manager.allocate(CounterTypes.MOLD_DUPLICATES, label);
        this.malformed = manager.allocate(CounterTypes.MOLD_MALFORMED, label);
        this.state = manager.allocate(CounterTypes.MOLD_STATE, label);
        this.answersFromStrangers = manager.allocate(CounterTypes.MOLD_ANSWERS_FROM_STRANGERS, label);
    }

    void publish(final long nextExpectedValue, final long gapsValue, final long requestsValue, final long recoveredValue,
        final long duplicatesValue, final long malformedValue, final int stateValue, final long answersFromStrangersValue) {
        // a store only when the value moved: most cycles change nothing
        if (nextExpected.get() != nextExpectedValue) {
            nextExpected.set(nextExpectedValue);
        }
        if (gaps.get() != gapsValue) {
            gaps.set(gapsValue);
        }
        if (requests.get() != requestsValue) {
            requests.set(requestsValue);
        }
        if (recovered.get() != recoveredValue) {
            recovered.set(recoveredValue);
        }
        if (duplicates.get() != duplicatesValue) {
            duplicates.set(duplicatesValue);
        }
        if (malformed.get() != malformedValue) {
            malformed.set(malformedValue);
        }
        if (state.get() != stateValue) {
            state.set(stateValue);
        }
        if (answersFromStrangers.get() != answersFromStrangersValue) {
            answersFromStrangers.set(answersFromStrangersValue);
        }
    }

    void close() {
        nextExpected.close();
        gaps.close();
        requests.close();
        recovered.close();
        duplicates.close();
        malformed.close();
        state.close();
        answersFromStrangers.close();
    }
}
