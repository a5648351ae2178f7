package io.rediacc.gpu.inventory.rest;

/** A query or path parameter the caller got wrong; answered with 400 and how to fix it. */
public class InvalidParameterException extends RuntimeException {

    private final String hint;

    public InvalidParameterException(String detail, String hint) {
        super(detail);
        this.hint = hint;
    }

    public String hint() {
        return hint;
    }
}
