package io.rediacc.gpu.api.problem;

/**
 * Why a token was refused for what it says, not for its signature (TokenPrincipalCheck throws it as the
 * cause of the authentication failure): the 401 answer names it. It lives with the answers, so the error
 * model does not depend on the security checks.
 */
public final class TokenRefused extends RuntimeException {
    public TokenRefused(String reason) {
        super(reason, null, false, false);
    }

    /** The reason a token was refused, found in a failure's causes; null when it was refused elsewhere. */
    public static String reasonOf(Throwable failure) {
        for (Throwable e = failure; e != null; e = e.getCause() == e ? null : e.getCause()) {
            if (e instanceof TokenRefused refused) {
                return refused.getMessage();
            }
        }
        return null;
    }
}
