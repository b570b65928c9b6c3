package io.bellwether.bench.peers;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.awaitility.Awaitility;
import org.junit.jupiter.api.Test;

class SignallerTest {
    private static char state(long pid) throws IOException {
        String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
        return stat.charAt(stat.lastIndexOf(')') + 2);
    }

    @Test
    void stopsAndResumesAProcess() throws Exception {
        Process sleeper = new ProcessBuilder("sleep", "30").start();
        try {
            long pid = sleeper.pid();
            NodeProcess.Signaller.send("STOP", pid);
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> state(pid) == 'T');
            NodeProcess.Signaller.send("CONT", pid);
            Awaitility.await().atMost(Duration.ofSeconds(5)).until(() -> state(pid) == 'S');
            assertEquals('S', state(pid));
        } finally {
            sleeper.destroyForcibly();
        }
    }

    @Test
    void aSignalThatCannotBeSentIsAnError() throws Exception {
        Process gone = new ProcessBuilder("true").start();
        gone.waitFor();
        assertThrows(IOException.class, () -> NodeProcess.Signaller.send("STOP", gone.pid()));
    }
}
