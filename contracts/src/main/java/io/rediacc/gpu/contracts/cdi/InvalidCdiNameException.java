package io.rediacc.gpu.contracts.cdi;

/** A string that is not a valid qualified CDI device name; {@link #part()} says which part is wrong. */
public final class InvalidCdiNameException extends IllegalArgumentException {

    /** The part of a qualified name that failed validation. */
    public enum Part { NAME, VENDOR, CLASS, DEVICE }

    private final Part part;
    private final String input;

    public InvalidCdiNameException(Part part, String input, String message) {
        super(message);
        this.part = part;
        this.input = input;
    }

    public Part part() {
        return part;
    }

    /** The whole string that was given to the parser. */
    public String input() {
        return input;
    }
}
