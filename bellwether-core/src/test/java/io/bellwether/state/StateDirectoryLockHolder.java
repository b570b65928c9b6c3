package io.bellwether.state;

import java.io.IOException;
import java.nio.file.Path;

/**
 * A second process for {@link FileStateStoreValuesAndLockTest}: opens a {@link FileStateStore} on the directory
 * given as its argument, prints {@code locked}, and holds it until its standard input closes.
 */
public final class StateDirectoryLockHolder {
    private StateDirectoryLockHolder() {}

    public static void main(String[] args) throws IOException {
        try (FileStateStore store = new FileStateStore(Path.of(args[0]))) {
            System.out.println("locked " + ProcessHandle.current().pid());
            System.out.flush();
            while (System.in.read() >= 0) {
                // wait for the parent to close our input
            }
        }
    }
}
