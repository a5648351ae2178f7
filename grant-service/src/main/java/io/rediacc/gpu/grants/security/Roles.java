package io.rediacc.gpu.grants.security;

/** The two roles of the API. An operator is also a viewer ({@link OperatorIsViewer}). */
public final class Roles {

    /** May read grants: {@code GET /api/v1/...}. */
    public static final String VIEWER = "viewer";

    /** May grant and revoke. */
    public static final String OPERATOR = "operator";

    private Roles() {
    }
}
