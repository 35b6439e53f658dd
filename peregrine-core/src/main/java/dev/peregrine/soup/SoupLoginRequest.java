package dev.peregrine.soup;

import java.lang.foreign.MemorySegment;

/** The strict parse of a Login Request payload: what is wrong with it, field by field. */
final class SoupLoginRequest {
    private SoupLoginRequest() {
    }

    /**
     * Why a Login Request payload is malformed, or null if it is sound.
     *
     * @param buffer memory holding the payload (after the type byte)
     * @param offset where it starts
     * @param length its length
     * @return the reason, naming the field, or null
     */
    static String fault(final MemorySegment buffer, final long offset, final int length) {
        if (length != SoupBinTcpLayout.LOGIN_REQUEST_LENGTH) {
            return "payload of " + length + " bytes, not " + SoupBinTcpLayout.LOGIN_REQUEST_LENGTH;
        }
        String fault = SoupBinTcpLayout.leftJustifiedFault(buffer, offset + SoupBinTcpLayout.LOGIN_USERNAME_OFFSET,
            SoupBinTcpLayout.USERNAME_LENGTH, true);
        if (fault != null) {
            return "username: " + fault;
        }
        fault = SoupBinTcpLayout.leftJustifiedFault(buffer, offset + SoupBinTcpLayout.LOGIN_PASSWORD_OFFSET,
            SoupBinTcpLayout.PASSWORD_LENGTH, false);
        if (fault != null) {
            return "password: " + fault;
        }
        fault = SoupBinTcpLayout.rightJustifiedFault(buffer, offset + SoupBinTcpLayout.LOGIN_SESSION_OFFSET,
            SoupBinTcpLayout.SESSION_LENGTH);
        if (fault != null) {
            return "requested session: " + fault;
        }
        if (SoupBinTcpLayout.parseSequence(buffer, offset + SoupBinTcpLayout.LOGIN_SEQUENCE_OFFSET) < 0) {
            return "requested sequence number '" + SoupBinTcpLayout.text(buffer, offset
                + SoupBinTcpLayout.LOGIN_SEQUENCE_OFFSET, SoupBinTcpLayout.SEQUENCE_LENGTH)
                + "' is not spaces then digits (a number up to 2^63-1)";
        }
        return null;
    }
}
