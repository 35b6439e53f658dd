package dev.peregrine.soup;

/**
 * What a {@link SoupAuthenticator} decided about one login: a session to join, or a reject code.
 *
 * @param session the session to join, or null when rejected
 * @param rejectCode {@link SoupBinTcpLayout#REJECT_NOT_AUTHORIZED} or
 *     {@link SoupBinTcpLayout#REJECT_SESSION_NOT_AVAILABLE} when rejected, 0 when accepted
 */
public record SoupLoginDecision(SoupBinTcpSession session, byte rejectCode) {
    /** Login Rejected {@code A}: bad username or password. */
    public static final SoupLoginDecision NOT_AUTHORIZED = new SoupLoginDecision(null, SoupBinTcpLayout.REJECT_NOT_AUTHORIZED);
    /** Login Rejected {@code S}: the session is unknown or not available. */
    public static final SoupLoginDecision SESSION_NOT_AVAILABLE =
        new SoupLoginDecision(null, SoupBinTcpLayout.REJECT_SESSION_NOT_AVAILABLE);

    /**
     * Checks that exactly one of the two is given.
     *
     * @param session the session, or null
     * @param rejectCode the code, or 0
     */
    public SoupLoginDecision {
        if (session == null ? rejectCode != SoupBinTcpLayout.REJECT_NOT_AUTHORIZED
            && rejectCode != SoupBinTcpLayout.REJECT_SESSION_NOT_AVAILABLE : rejectCode != 0) {
            throw new IllegalArgumentException("session=" + session + " rejectCode=" + rejectCode
                + ": give a session and 0, or no session and 'A' or 'S'");
        }
    }

    /**
     * Accepts the login into a session.
     *
     * @param session the session, of the server the login came to
     * @return the decision
     */
    public static SoupLoginDecision accept(final SoupBinTcpSession session) {
        if (session == null) {
            throw new IllegalArgumentException("session=null");
        }
        return new SoupLoginDecision(session, (byte)0);
    }
}
