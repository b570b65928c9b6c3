package io.bellwether.server.run;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;

/** Copies a program's output line by line, each line prefixed, as bytes (whatever the program's encoding). */
final class LinePump {
    /** A longer line is cut into pieces, each prefixed, so that one line never holds the stream for long. */
    static final int MAX_LINE_BYTES = 16 * 1024;

    private LinePump() {}

    static void copy(InputStream in, PrintStream to, byte[] prefix) throws IOException {
        byte[] line = new byte[MAX_LINE_BYTES];
        int length = 0;
        byte[] buffer = new byte[8192];
        int n;
        while ((n = in.read(buffer)) >= 0) {
            for (int i = 0; i < n; i++) {
                byte b = buffer[i];
                if (b == '\n' || length == line.length) {
                    write(to, prefix, line, length);
                    length = 0;
                    if (b == '\n') {
                        continue;
                    }
                }
                line[length++] = b;
            }
        }
        if (length > 0) {
            write(to, prefix, line, length);
        }
    }

    private static void write(PrintStream to, byte[] prefix, byte[] line, int length) {
        // One write per line, under the stream's lock: lines of the program's output and error do not interleave.
        synchronized (to) {
            to.write(prefix, 0, prefix.length);
            to.write(line, 0, length);
            to.write('\n');
            to.flush();
        }
    }
}
