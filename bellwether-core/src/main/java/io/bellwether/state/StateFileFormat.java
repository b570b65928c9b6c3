package io.bellwether.state;

import io.bellwether.elector.StoredState;
import io.bellwether.elector.Wire;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.zip.CRC32;

/**
 * The bytes of a {@link FileStateStore} state file: how a record and a slot are written, and how a file of either
 * format version is read back into the state to load (the layout and the reasoning are on {@link FileStateStore}).
 * Pure functions of bytes, no I/O, so that the store keeps only what touches the disk.
 */
final class StateFileFormat {
    static final String FORMAT = "bellwether-state";
    static final int VERSION = 2;

    private static final String CHECKSUM_PREFIX = "crc32=";
    private static final String SEQ_PREFIX = "seq=";
    private static final byte[] HEADER_PREFIX = (FORMAT + " ").getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HEADER_V1 = (FORMAT + " 1\n").getBytes(StandardCharsets.US_ASCII);
    private static final byte[] HEADER_V2 = (FORMAT + " 2\n").getBytes(StandardCharsets.US_ASCII);

    private StateFileFormat() {}

    // ---------------------------------------------------------------- format

    /** A format-2 record: header, sequence number, the values, checksum. */
    static byte[] formatRecord(StoredState state, long seq) {
        StringBuilder text = new StringBuilder();
        text.append(FORMAT).append(' ').append(VERSION).append('\n');
        text.append(SEQ_PREFIX).append(seq).append('\n');
        state.values().forEach((k, v) -> text.append(k).append('=').append(v).append('\n'));
        byte[] body = text.toString().getBytes(StandardCharsets.UTF_8);
        text.append(CHECKSUM_PREFIX)
                .append(String.format("%08x", crc(body, 0, body.length)))
                .append('\n');
        return text.toString().getBytes(StandardCharsets.UTF_8);
    }

    /** A whole slot: {@code record}, then spaces, then a newline as the slot's last byte. */
    static byte[] slotOf(byte[] record) {
        byte[] slot = emptySlot();
        System.arraycopy(record, 0, slot, 0, record.length);
        return slot;
    }

    /** A slot of padding only. */
    static byte[] emptySlot() {
        byte[] slot = new byte[FileStateStore.SLOT_BYTES];
        Arrays.fill(slot, (byte) ' ');
        slot[FileStateStore.SLOT_BYTES - 1] = '\n';
        return slot;
    }

    // ---------------------------------------------------------------- parsing

    /**
     * What a readable file holds: the state to load, the format version, for format 2 the slot and sequence
     * number of the newest record, and what is wrong with the other slot if it is damaged (else null).
     */
    record Contents(StoredState state, int version, int slot, long seq, String damage) {}

    record Record(long seq, StoredState state) {}

    /** The file or slot cannot be used; the message says why. */
    static final class Unusable extends Exception {
        private static final long serialVersionUID = 1L;

        Unusable(String problem) {
            super(problem, null, false, false);
        }
    }

    static Contents parse(byte[] bytes) throws Unusable {
        if (bytes.length == 0) {
            throw new Unusable("it is empty (truncated?)");
        }
        if (startsWith(bytes, 0, HEADER_V1)) {
            return new Contents(parseRecord(bytes, 0, bytes.length, 1).state(), 1, -1, 0, null);
        }
        if (bytes.length == FileStateStore.FILE_BYTES) {
            return parseSlots(bytes);
        }
        if (startsWith(bytes, 0, HEADER_V2)) {
            throw new Unusable("it is " + bytes.length + " bytes long; a version 2 state file has exactly "
                    + FileStateStore.FILE_BYTES + " (truncated?)");
        }
        // Not a known layout: let the format-1 parser say what is wrong with it (garbage, unknown version, …).
        return new Contents(parseRecord(bytes, 0, bytes.length, 1).state(), 1, -1, 0, null);
    }

    private static Contents parseSlots(byte[] bytes) throws Unusable {
        Record[] records = new Record[2];
        String[] problems = new String[2];
        long[] claimed = new long[2];
        for (int i = 0; i < 2; i++) {
            int offset = i * FileStateStore.SLOT_BYTES;
            if (isPadding(bytes, offset)) {
                problems[i] = "empty";
                continue;
            }
            try {
                records[i] = parseSlot(bytes, offset);
            } catch (Unusable e) {
                claimed[i] = claimedSeq(bytes, offset);
                problems[i] =
                        "damaged: " + e.getMessage() + (claimed[i] > 0 ? " (it claims seq=" + claimed[i] + ")" : "");
            }
        }
        if (records[0] == null && records[1] == null) {
            throw new Unusable("neither slot holds a valid record (" + slotName(0) + " " + problems[0] + "; "
                    + slotName(1) + " " + problems[1] + ")");
        }
        int newest;
        if (records[0] != null && records[1] != null) {
            if (records[0].seq() == records[1].seq()) {
                if (!records[0].state().equals(records[1].state())) {
                    throw new Unusable("both slots hold seq=" + records[0].seq()
                            + " with different values, so neither can be told to be the newer");
                }
                newest = 0;
            } else {
                newest = records[0].seq() > records[1].seq() ? 0 : 1;
            }
        } else {
            newest = records[0] != null ? 0 : 1;
        }
        int other = 1 - newest;
        String damage = null;
        if (records[other] == null && !problems[other].equals("empty")) {
            String loaded = "; loaded " + slotName(newest) + " (seq=" + records[newest].seq() + ") instead";
            damage = slotName(other) + " is " + problems[other] + loaded
                    + (claimed[other] > 0 && claimed[other] < records[newest].seq()
                            ? ". The damaged record was the older one: nothing is lost, the next save overwrites it"
                            : ". A crash during a save leaves this: that save never returned, so its state was never"
                                    + " acted upon. Any other cause (a failing disk, another program writing the"
                                    + " file) could mean the damaged record was the newer one: check the disk");
        }
        return new Contents(records[newest].state(), VERSION, newest, records[newest].seq(), damage);
    }

    private static String slotName(int slot) {
        return "slot " + slot + " (bytes " + (slot * FileStateStore.SLOT_BYTES) + "–"
                + ((slot + 1) * FileStateStore.SLOT_BYTES - 1) + ")";
    }

    private static boolean isPadding(byte[] bytes, int offset) {
        for (int i = offset; i < offset + FileStateStore.SLOT_BYTES - 1; i++) {
            if (bytes[i] != ' ') {
                return false;
            }
        }
        return bytes[offset + FileStateStore.SLOT_BYTES - 1] == '\n';
    }

    private static Record parseSlot(byte[] bytes, int offset) throws Unusable {
        if (!startsWith(bytes, offset, HEADER_PREFIX)) {
            throw new Unusable("it holds neither a record nor padding (it starts with '" + printable(bytes, offset, 20)
                    + "'; a torn write?)");
        }
        int last = offset + FileStateStore.SLOT_BYTES - 1;
        if (bytes[last] != '\n') {
            throw new Unusable("it does not end with padding and a newline (a torn write?)");
        }
        int end = last;
        while (end > offset && bytes[end - 1] == ' ') {
            end--;
        }
        return parseRecord(bytes, offset, end, VERSION);
    }

    // For the warning about a damaged slot: the sequence number it claims if its second line is readable, else 0.
    private static long claimedSeq(byte[] bytes, int offset) {
        String text = new String(bytes, offset, FileStateStore.SLOT_BYTES, StandardCharsets.ISO_8859_1);
        String[] lines = text.split("\n", 3);
        if (lines.length >= 2 && lines[1].matches("seq=[1-9][0-9]{0,17}")) {
            return Long.parseLong(lines[1].substring(SEQ_PREFIX.length()));
        }
        return 0;
    }

    /** Parses one record of format {@code version} from {@code bytes[from, to)}. */
    private static Record parseRecord(byte[] bytes, int from, int to, int version) throws Unusable {
        String text;
        try {
            text = Wire.strictUtf8(ByteBuffer.wrap(bytes, from, to - from));
        } catch (CharacterCodingException e) {
            throw new Unusable("it is not a Bellwether state file (not UTF-8 text)");
        }
        List<String> lines = List.of(text.split("\n", -1));
        String header = lines.get(0);
        if (!header.startsWith(FORMAT + " ")) {
            throw new Unusable("it is not a Bellwether state file (first line '" + abbreviate(header) + "', expected '"
                    + FORMAT + " " + VERSION + "')");
        }
        String versionText = header.substring(FORMAT.length() + 1);
        if (!versionText.equals(Integer.toString(version))) {
            throw new Unusable(
                    version == 1
                            ? "its format version '" + abbreviate(versionText)
                                    + "' is not supported (this version reads versions 1 and 2)"
                            : "its record's format version is '" + abbreviate(versionText) + "', expected " + version);
        }
        int firstValue = version == 1 ? 1 : 2;
        // A complete record ends with the checksum line and a newline, so the split leaves an empty last item.
        if (lines.size() < firstValue + 2 || !lines.get(lines.size() - 1).isEmpty()) {
            throw new Unusable("it is truncated: it does not end with a complete checksum line");
        }
        String checksumLine = lines.get(lines.size() - 2);
        if (!checksumLine.startsWith(CHECKSUM_PREFIX)) {
            throw new Unusable("it is truncated: the last line is '" + abbreviate(checksumLine)
                    + "', expected a checksum line '" + CHECKSUM_PREFIX + "…'");
        }
        long expected;
        try {
            String hex = checksumLine.substring(CHECKSUM_PREFIX.length());
            if (hex.length() != 8) {
                throw new NumberFormatException(hex);
            }
            expected = Long.parseLong(hex, 16);
        } catch (NumberFormatException e) {
            throw new Unusable("its checksum line '" + abbreviate(checksumLine) + "' is malformed");
        }
        int bodyLength = to - from - checksumLine.getBytes(StandardCharsets.UTF_8).length - 1;
        long actual = crc(bytes, from, bodyLength);
        if (actual != expected) {
            throw new Unusable(
                    String.format("its checksum does not match (stored %08x, computed %08x)", expected, actual));
        }
        long seq = 0;
        if (version >= 2) {
            String seqLine = lines.get(1);
            try {
                if (!seqLine.startsWith(SEQ_PREFIX)) {
                    throw new NumberFormatException(seqLine);
                }
                seq = Long.parseLong(seqLine.substring(SEQ_PREFIX.length()));
                if (seq < 1) {
                    throw new NumberFormatException(seqLine);
                }
            } catch (NumberFormatException e) {
                throw new Unusable(
                        "line 2 '" + abbreviate(seqLine) + "' is not the record's sequence number (seq=<n>, n ≥ 1)");
            }
        }
        Map<String, Long> values = new LinkedHashMap<>();
        for (int i = firstValue; i < lines.size() - 2; i++) {
            String line = lines.get(i);
            int eq = line.indexOf('=');
            if (eq <= 0) {
                throw new Unusable("line " + (i + 1) + " '" + abbreviate(line) + "' is not key=value");
            }
            String key = line.substring(0, eq);
            long value;
            try {
                value = Long.parseLong(line.substring(eq + 1));
            } catch (NumberFormatException e) {
                throw new Unusable("line " + (i + 1) + " '" + abbreviate(line) + "' does not hold a whole number");
            }
            if (values.put(key, value) != null) {
                throw new Unusable("line " + (i + 1) + " repeats key '" + abbreviate(key) + "'");
            }
        }
        try {
            return new Record(seq, StoredState.of(values));
        } catch (IllegalArgumentException e) {
            throw new Unusable(e.getMessage());
        }
    }

    private static boolean startsWith(byte[] bytes, int offset, byte[] prefix) {
        return bytes.length - offset >= prefix.length
                && Arrays.equals(bytes, offset, offset + prefix.length, prefix, 0, prefix.length);
    }

    private static String printable(byte[] bytes, int offset, int max) {
        StringBuilder s = new StringBuilder();
        for (int i = offset; i < Math.min(bytes.length, offset + max); i++) {
            int b = bytes[i] & 0xff;
            s.append(b >= 0x20 && b < 0x7f ? (char) b : '?');
        }
        return s.toString();
    }

    private static long crc(byte[] bytes, int offset, int length) {
        CRC32 crc = new CRC32();
        crc.update(bytes, offset, length);
        return crc.getValue();
    }

    private static String abbreviate(String s) {
        String printable = s.replaceAll("\\p{Cntrl}", "?");
        return printable.length() <= 40 ? printable : printable.substring(0, 40) + "…";
    }
}
