package io.bellwether.sim;

/** A binary min-heap of events by (time, seq); avoids comparator indirection on the hot path. */
final class EventQueue {
    private Event[] heap = new Event[256];
    private int size;

    int size() {
        return size;
    }

    boolean isEmpty() {
        return size == 0;
    }

    void add(Event e) {
        if (size == heap.length) {
            Event[] bigger = new Event[size * 2];
            System.arraycopy(heap, 0, bigger, 0, size);
            heap = bigger;
        }
        int i = size++;
        while (i > 0) {
            int parent = (i - 1) >>> 1;
            Event p = heap[parent];
            if (!less(e, p)) {
                break;
            }
            heap[i] = p;
            i = parent;
        }
        heap[i] = e;
    }

    Event peek() {
        return size == 0 ? null : heap[0];
    }

    Event poll() {
        if (size == 0) {
            return null;
        }
        Event top = heap[0];
        Event last = heap[--size];
        heap[size] = null;
        if (size > 0) {
            int i = 0;
            int half = size >>> 1;
            while (i < half) {
                int child = 2 * i + 1;
                Event c = heap[child];
                int right = child + 1;
                if (right < size && less(heap[right], c)) {
                    child = right;
                    c = heap[child];
                }
                if (!less(c, last)) {
                    break;
                }
                heap[i] = c;
                i = child;
            }
            heap[i] = last;
        }
        return top;
    }

    private static boolean less(Event a, Event b) {
        return a.time < b.time || (a.time == b.time && a.seq < b.seq);
    }
}
