package io.bellwether.elector;

/** A received message could not be decoded; the message says why. The frame is dropped. */
public class MalformedMessageException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public MalformedMessageException(String message) {
        super(message);
    }

    public MalformedMessageException(String message, Throwable cause) {
        super(message, cause);
    }
}
