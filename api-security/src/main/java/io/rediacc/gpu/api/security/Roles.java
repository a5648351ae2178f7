package io.rediacc.gpu.api.security;

/** The two roles of the services' APIs. An operator is also a viewer ({@link OperatorIsViewer}). */
public final class Roles {

    /** May read: every {@code GET /api/v1/...} of grant-service and inventory-service. */
    public static final String VIEWER = "viewer";

    /** May change: grant and revoke. */
    public static final String OPERATOR = "operator";

    private Roles() {
    }
}
