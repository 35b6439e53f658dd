package dev.peregrine.soup;

/**
 * Decides each login of a {@link SoupBinTcpServer}: which session it joins, or why it is refused. Called on the
 * reactor thread, once per Login Request that parsed; it may allocate (a login is not the hot path).
 *
 * <p>A session shared by many clients (market data, as ITCH does) is simply returned to every user allowed to
 * read it; a session owned by one user (order entry, as OUCH does) is returned only to that user.
 */
@FunctionalInterface
public interface SoupAuthenticator {
    /**
     * Maps a login to a session or a refusal.
     *
     * @param username the username without its padding, possibly empty
     * @param password the password without its padding, possibly empty
     * @param requestedSession the requested session without its padding; empty means "the session currently
     *     active" (which one that is, is the authenticator's to say)
     * @return {@link SoupLoginDecision#accept(SoupBinTcpSession)}, {@link SoupLoginDecision#NOT_AUTHORIZED}
     *     (Login Rejected {@code A}) or {@link SoupLoginDecision#SESSION_NOT_AVAILABLE} (Login Rejected {@code S})
     */
    SoupLoginDecision authenticate(String username, String password, String requestedSession);
}
