package io.bellwether.spi;

/** A state store could not read or durably write a record. The message names the record (file, key). */
public class StateStoreException extends RuntimeException {
    private static final long serialVersionUID = 1L;

    public StateStoreException(String message) {
        super(message);
    }

    public StateStoreException(String message, Throwable cause) {
        super(message, cause);
    }
}
