package io.bellwether;

/** Thrown by {@link Leadership#checkValid()} once the leadership has ended or its validity has run out. */
public final class LeadershipLostException extends IllegalStateException {
    private static final long serialVersionUID = 1L;

    private final long epoch;

    public LeadershipLostException(long epoch, String message) {
        super(message);
        this.epoch = epoch;
    }

    /** The epoch of the lost leadership. */
    public long epoch() {
        return epoch;
    }
}
