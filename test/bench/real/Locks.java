// OpenJDK 17, run as `java Locks.java` (source-file mode: compiled in memory,
// then run): 8 threads share a few synchronized counters and allocate lists,
// strings and maps. Deterministic result: prints one line that must not change.
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

public class Locks {
    static final int THREADS = 8;
    static final int ROUNDS = 40000;
    static final Object[] locks = { new Object(), new Object(), new Object(), new Object() };
    static final long[] counters = new long[4];

    public static void main(String[] args) throws Exception {
        Thread[] ts = new Thread[THREADS];
        final long[] sums = new long[THREADS];
        for (int t = 0; t < THREADS; t++) {
            final int id = t;
            ts[t] = new Thread(() -> {
                long seed = 1 + id, sum = 0;
                Map<String, List<Integer>> m = new HashMap<>();
                for (int i = 0; i < ROUNDS; i++) {
                    seed = (seed * 6364136223846793005L + 1442695040888963407L);
                    int k = (int) ((seed >>> 33) % 4);
                    synchronized (locks[k]) {
                        counters[k] += i & 7;
                    }
                    String key = "k" + (i % 512);
                    List<Integer> l = m.computeIfAbsent(key, x -> new ArrayList<>());
                    l.add(i);
                    if (l.size() > 16) {
                        sum += l.get(3);
                        m.remove(key);
                    }
                    sum += new StringBuilder().append(i).append(':').append(id).toString().length();
                }
                sums[id] = sum;
            });
            ts[t].start();
        }
        long total = 0;
        for (int t = 0; t < THREADS; t++) {
            ts[t].join();
            total += sums[t];
        }
        long c = 0;
        for (long x : counters) c += x;
        System.out.println("RESULT java " + total + " " + c);
    }
}
