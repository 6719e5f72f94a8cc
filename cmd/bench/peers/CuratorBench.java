// CuratorBench runs the harness's workloads with Apache Curator and prints
// one JSON line per workload, in the Go harness's format.
//
// Usage: CuratorBench <connect> <workload> <durationMs> [herdWaiters | failovers selector|latch | threads]
// (workload: mutex-uncontended, mutex-contended, semaphore, rwlock, herd, failover, counter, atomic, atomic-promoted,
// queue, or many-locks-<clients> with its number of threads)
// (and CuratorBench <connect> failover-worker <selector|latch> <path>: the failover's second JVM;
// CuratorBench <connect> propagation-subscribers: the propagation workload's CuratorCache subscribers)
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.io.Closeable;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.atomic.AtomicValue;
import org.apache.curator.framework.recipes.atomic.DistributedAtomicLong;
import org.apache.curator.framework.recipes.atomic.PromotedToLock;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.framework.recipes.queue.DistributedQueue;
import org.apache.curator.framework.recipes.queue.QueueBuilder;
import org.apache.curator.framework.recipes.queue.QueueConsumer;
import org.apache.curator.framework.recipes.queue.QueuePutListener;
import org.apache.curator.framework.recipes.queue.QueueSerializer;
import org.apache.curator.framework.recipes.queue.MultiItem;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.framework.recipes.shared.SharedCount;
import org.apache.curator.framework.recipes.shared.VersionedValue;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.retry.RetryNTimes;

public class CuratorBench {

    static String connect;

    public static void main(String[] a) throws Exception {
        connect = a[0];
        String workload = a[1];
        if (workload.equals("failover-worker")) { // started by Failover: <connect> failover-worker <kind> <path>
            failoverWorker(a[2], a[3]);
            System.exit(0);
        }
        if (workload.equals("propagation-subscribers")) {
            propagationSubscribers();
            System.exit(0);
        }
        long duration = Long.parseLong(a[2]);
        String base = "/bench/curator/" + workload;
        switch (workload) {
            case "mutex-uncontended": contention(workload, 1, duration, base, "mutex", 1); break;
            case "mutex-contended": contention(workload, 8, duration, base, "mutex", 1); break;
            case "semaphore": contention(workload, 8, duration, base, "semaphore", 3); break;
            case "rwlock": contention(workload, 8, duration, base, "rwlock", 1); break;
            case "herd": herd(Integer.parseInt(a[3]), base + "-" + a[3]); break;
            case "counter": counter(workload, 8, duration, base); break;
            case "atomic": atomic(workload, 8, duration, base, false); break;
            case "atomic-promoted": atomic("atomic", 8, duration, base, true); break;
            case "queue": queue(workload, duration, base); break;
            case "failover": new Failover(a[4], base + "-" + a[4]).run(Integer.parseInt(a[3])); break;
            default:
                if (!workload.startsWith("many-locks-")) throw new IllegalArgumentException(workload);
                manyLocks(workload, Integer.parseInt(workload.substring("many-locks-".length())), Integer.parseInt(a[3]), duration, base);
        }
        System.exit(0);
    }

    static CuratorFramework client() throws Exception {
        CuratorFramework c = CuratorFrameworkFactory.newClient(connect, 10000, 10000, new ExponentialBackoffRetry(10, 10));
        c.start();
        c.blockUntilConnected();
        return c;
    }

    // contention warms up (bench.warmupMs, unrecorded: the JIT compiles the hot paths) and then measures,
    // with the same clients.
    static void contention(String workload, int n, long durationMs, String path, String kind, int leases) throws Exception {
        List<CuratorFramework> clients = new ArrayList<>();
        for (int i = 0; i < n; i++) clients.add(client());
        long warmupMs = Long.getLong("bench.warmupMs", 0L);
        if (warmupMs > 0) phase(clients, workload, n, warmupMs, path, kind, leases, false);
        phase(clients, workload, n, durationMs, path, kind, leases, true);
        for (CuratorFramework c : clients) c.close();
    }

    static void phase(List<CuratorFramework> clients, String workload, int n, long durationMs, String path, String kind, int leases, boolean report) throws Exception {
        AtomicLong cycles = new AtomicLong(), violations = new AtomicLong(), releaseStart = new AtomicLong(), failures = new AtomicLong();
        AtomicInteger inside = new AtomicInteger(), writers = new AtomicInteger();
        List<Long> handoffs = Collections.synchronizedList(new ArrayList<>());
        long srv0 = received();
        long start = System.nanoTime(), stop = start + durationMs * 1_000_000L;
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            final int id = i;
            final CuratorFramework c = clients.get(i);
            Thread t = new Thread(() -> {
                try {
                    InterProcessMutex mutex = new InterProcessMutex(c, path);
                    InterProcessSemaphoreV2 sem = new InterProcessSemaphoreV2(c, path, leases);
                    InterProcessReadWriteLock rw = new InterProcessReadWriteLock(c, path);
                    for (int cycle = 0; System.nanoTime() < stop; cycle++) {
                        boolean write = kind.equals("rwlock") && (id + cycle) % 5 == 0;
                        Lease lease = null;
                        if (kind.equals("semaphore")) lease = sem.acquire();
                        else if (kind.equals("rwlock")) { InterProcessMutex l = write ? rw.writeLock() : rw.readLock(); l.acquire(); }
                        else mutex.acquire();
                        long rs = releaseStart.getAndSet(0);
                        if (rs != 0 && n > 1) handoffs.add(System.nanoTime() - rs);
                        int in = inside.incrementAndGet();
                        int w = write ? writers.incrementAndGet() : writers.get();
                        boolean ok = kind.equals("semaphore") ? in <= leases : kind.equals("rwlock") ? (w == 0 || (w == 1 && in == 1)) : in <= 1;
                        if (!ok) violations.incrementAndGet();
                        if (write) writers.decrementAndGet();
                        inside.decrementAndGet();
                        releaseStart.set(System.nanoTime());
                        if (lease != null) sem.returnLease(lease);
                        else if (kind.equals("rwlock")) { InterProcessMutex l = write ? rw.writeLock() : rw.readLock(); l.release(); }
                        else mutex.release();
                        cycles.incrementAndGet();
                    }
                } catch (Exception e) {
                    failures.incrementAndGet(); // reported: the run had fewer clients than it says
                    e.printStackTrace();
                }
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) t.join();
        if (!report) return;
        double secs = (System.nanoTime() - start) / 1e9;
        long srv = received() - srv0;
        List<Long> hs = new ArrayList<>(handoffs);
        Collections.sort(hs);
        System.out.printf("{\"impl\":\"curator\",\"workload\":\"%s\",\"clients\":%d,\"cycles\":%d,\"seconds\":%.3f,\"cycles_per_sec\":%.1f,"
                + "\"handoff_p50_us\":%.0f,\"handoff_p99_us\":%.0f,\"client_requests_per_cycle\":0,\"server_requests_per_cycle\":%.3f,\"violations\":%d,"
                + "\"notes\":\"client-side requests not counted for Java%s\"}%n",
            workload, n, cycles.get(), secs, cycles.get() / secs, pct(hs, 50), pct(hs, 99), (double) srv / Math.max(1, cycles.get()), violations.get(),
            failures.get() == 0 ? "" : "; " + failures.get() + " of " + n + " clients failed (stack traces on stderr)");
        if (failures.get() > 0) System.exit(1);
    }

    // manyLocks runs the Go harness's many-locks workload (cmd/bench/internal/harness/manylocks.go): threads threads over clients
    // CuratorFrameworks (thread i on client i mod clients), each looping acquire and release of an InterProcessMutex of
    // its own, never contended. It warms up (bench.warmupMs, unrecorded) and then measures, with the same clients and
    // mutexes.
    static void manyLocks(String workload, int clients, int threads, long durationMs, String path) throws Exception {
        List<CuratorFramework> cs = new ArrayList<>();
        for (int i = 0; i < clients; i++) cs.add(client());
        List<InterProcessMutex> mutexes = new ArrayList<>();
        for (int i = 0; i < threads; i++) mutexes.add(new InterProcessMutex(cs.get(i % clients), path + "/" + i));
        long warmupMs = Long.getLong("bench.warmupMs", 0L);
        if (warmupMs > 0) manyLocksPhase(mutexes, workload, clients, warmupMs, false);
        manyLocksPhase(mutexes, workload, clients, durationMs, true);
        for (CuratorFramework c : cs) c.close();
    }

    static void manyLocksPhase(List<InterProcessMutex> mutexes, String workload, int clients, long durationMs, boolean report) throws Exception {
        AtomicLong cycles = new AtomicLong(), violations = new AtomicLong(), failures = new AtomicLong();
        long srv0 = received();
        long start = System.nanoTime(), stop = start + durationMs * 1_000_000L;
        List<Thread> threads = new ArrayList<>();
        for (InterProcessMutex mutex : mutexes) {
            AtomicInteger inside = new AtomicInteger();
            Thread t = new Thread(() -> {
                try {
                    while (System.nanoTime() < stop) {
                        mutex.acquire();
                        if (inside.incrementAndGet() != 1) violations.incrementAndGet();
                        inside.decrementAndGet();
                        mutex.release();
                        cycles.incrementAndGet();
                    }
                } catch (Exception e) {
                    failures.incrementAndGet();
                    e.printStackTrace();
                }
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) t.join();
        if (!report) return;
        double secs = (System.nanoTime() - start) / 1e9;
        long srv = received() - srv0;
        System.out.printf("{\"impl\":\"curator\",\"workload\":\"%s\",\"clients\":%d,\"waiters\":%d,\"cycles\":%d,\"seconds\":%.3f,\"cycles_per_sec\":%.1f,"
                + "\"client_requests_per_cycle\":0,\"server_requests_per_cycle\":%.3f,\"violations\":%d,"
                + "\"notes\":\"client-side requests not counted for Java%s\"}%n",
            workload, clients, mutexes.size(), cycles.get(), secs, cycles.get() / secs, (double) srv / Math.max(1, cycles.get()), violations.get(),
            failures.get() == 0 ? "" : "; " + failures.get() + " of " + mutexes.size() + " threads failed (stack traces on stderr)");
        if (failures.get() > 0) System.exit(1);
    }

    // counter runs n clients, each with its own SharedCount of path, that add one to the count with
    // trySetCount at the versioned value they last saw, again on a refusal (a conflict), as the Go harness's
    // counter workload (cmd/bench/counter.go). A refused trySetCount has read the count again, as the docs
    // say, so the loop reads nothing itself. It warms up (bench.warmupMs, unrecorded) and then measures, with
    // the same clients.
    static void counter(String workload, int n, long durationMs, String path) throws Exception {
        List<CuratorFramework> clients = new ArrayList<>();
        List<SharedCount> counts = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            CuratorFramework c = client();
            clients.add(c);
            SharedCount count = new SharedCount(c, path, 0);
            count.start();
            counts.add(count);
        }
        long warmupMs = Long.getLong("bench.warmupMs", 0L);
        if (warmupMs > 0) increments(clients.get(0), counts, workload, warmupMs, path, false);
        increments(clients.get(0), counts, workload, durationMs, path, true);
        for (SharedCount count : counts) count.close();
        for (CuratorFramework c : clients) c.close();
    }

    static void increments(CuratorFramework reader, List<SharedCount> counts, String workload, long durationMs, String path, boolean report) throws Exception {
        AtomicLong cycles = new AtomicLong(), conflicts = new AtomicLong(), failures = new AtomicLong();
        int before = readCount(reader, path);
        long srv0 = received();
        long start = System.nanoTime(), stop = start + durationMs * 1_000_000L;
        List<Thread> threads = new ArrayList<>();
        for (SharedCount count : counts) {
            Thread t = new Thread(() -> {
                try {
                    while (System.nanoTime() < stop) {
                        while (true) {
                            VersionedValue<Integer> cur = count.getVersionedValue();
                            if (count.trySetCount(cur, cur.getValue() + 1)) break;
                            conflicts.incrementAndGet();
                        }
                        cycles.incrementAndGet();
                    }
                } catch (Exception e) {
                    failures.incrementAndGet();
                    e.printStackTrace();
                }
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) t.join();
        double secs = (System.nanoTime() - start) / 1e9;
        long srv = received() - srv0;
        int after = readCount(reader, path);
        if (!report) return;
        long n = cycles.get(), violations = Math.abs((long) before + n - after);
        System.out.printf("{\"impl\":\"curator\",\"workload\":\"%s\",\"clients\":%d,\"cycles\":%d,\"seconds\":%.3f,\"cycles_per_sec\":%.1f,"
                + "\"client_requests_per_cycle\":0,\"server_requests_per_cycle\":%.3f,\"conflicts_per_cycle\":%.4f,\"violations\":%d,"
                + "\"notes\":\"SharedCount.trySetCount; client-side requests not counted for Java%s%s\"}%n",
            workload, counts.size(), n, secs, n / secs, (double) srv / Math.max(1, n), (double) conflicts.get() / Math.max(1, n), violations,
            violations == 0 ? "" : "; the count went from " + before + " to " + after + " in " + n + " increments",
            failures.get() == 0 ? "" : "; " + failures.get() + " of " + counts.size() + " clients failed (stack traces on stderr)");
        if (failures.get() > 0) System.exit(1);
    }

    // queue runs the Go harness's queue workload (cmd/bench/queue.go) with Curator's DistributedQueue: one producer
    // client puts items in Curator's default way (in the background), with at most 16 puts in flight (released by a
    // put listener) and at most 100 items put and not yet consumed; four consumer clients, each a lock-safe
    // DistributedQueue (lockPath) with the default direct executor, take them. A warm-up phase (bench.warmupMs,
    // unrecorded) and then the measured one, each drained at its end; every item must be consumed exactly once.
    static void queue(String workload, long durationMs, String path) throws Exception {
        List<CuratorFramework> clients = new ArrayList<>();
        for (int i = 0; i < 5; i++) clients.add(client());
        QueueSerializer<String> ser = new QueueSerializer<String>() {
            public byte[] serialize(String item) { return item.getBytes(StandardCharsets.UTF_8); }
            public String deserialize(byte[] bytes) { return new String(bytes, StandardCharsets.UTF_8); }
        };
        QueuePhase[] phase = new QueuePhase[1];
        List<DistributedQueue<String>> consumers = new ArrayList<>();
        for (int i = 1; i < 5; i++) {
            QueueConsumer<String> c = new QueueConsumer<String>() {
                public void consumeMessage(String item) { phase[0].delivered(item); }
                public void stateChanged(CuratorFramework cl, ConnectionState s) {}
            };
            DistributedQueue<String> q = QueueBuilder.builder(clients.get(i), c, ser, path).lockPath(path + "-locks").buildQueue();
            consumers.add(q);
        }
        DistributedQueue<String> producer = QueueBuilder.builder(clients.get(0), null, ser, path).buildQueue();
        producer.getPutListenerContainer().addListener(new QueuePutListener<String>() {
            public void putCompleted(String item) { phase[0].inflight.release(); }
            public void putMultiCompleted(MultiItem<String> items) { phase[0].inflight.release(); }
        });
        producer.start();
        for (DistributedQueue<String> q : consumers) q.start();
        long warmupMs = Long.getLong("bench.warmupMs", 0L);
        if (warmupMs > 0) {
            phase[0] = new QueuePhase("w");
            phase[0].run(producer, warmupMs);
        }
        phase[0] = new QueuePhase("i");
        long srv0 = received();
        long start = System.nanoTime();
        long cycles = phase[0].run(producer, durationMs);
        double secs = (System.nanoTime() - start) / 1e9;
        long srv = received() - srv0;
        String broken = phase[0].violations();
        System.out.printf("{\"impl\":\"curator\",\"workload\":\"%s\",\"clients\":5,\"cycles\":%d,\"seconds\":%.3f,\"cycles_per_sec\":%.1f,"
                + "\"client_requests_per_cycle\":0,\"server_requests_per_cycle\":%.3f,\"violations\":%d,"
                + "\"notes\":\"DistributedQueue with lockPath, background puts; client-side requests not counted for Java%s\"}%n",
            workload, cycles, secs, cycles / secs, (double) srv / Math.max(1, cycles), phase[0].violationCount, broken.isEmpty() ? "" : "; " + broken);
        for (DistributedQueue<String> q : consumers) q.close();
        producer.close();
        for (CuratorFramework c : clients) c.close();
    }

    // QueuePhase is one phase of the queue workload: its items ("<prefix><n>"), their deliveries and its window.
    static final class QueuePhase {
        final String prefix;
        final java.util.concurrent.ConcurrentHashMap<String, AtomicInteger> counts = new java.util.concurrent.ConcurrentHashMap<>();
        final java.util.concurrent.Semaphore window = new java.util.concurrent.Semaphore(100), inflight = new java.util.concurrent.Semaphore(16);
        final AtomicLong consumed = new AtomicLong();
        long produced, violationCount;

        QueuePhase(String prefix) { this.prefix = prefix; }

        void delivered(String item) {
            if (counts.computeIfAbsent(item, k -> new AtomicInteger()).incrementAndGet() == 1) {
                consumed.incrementAndGet();
                window.release();
            }
        }

        // run puts items for durationMs and returns how many were consumed by then; then it waits for the rest.
        long run(DistributedQueue<String> producer, long durationMs) throws Exception {
            long stop = System.nanoTime() + durationMs * 1_000_000L;
            while (System.nanoTime() < stop) {
                if (!window.tryAcquire(10, TimeUnit.MILLISECONDS)) continue;
                inflight.acquire();
                producer.put(prefix + (++produced));
            }
            long cycles = consumed.get();
            long deadline = System.nanoTime() + 60_000_000_000L;
            while (consumed.get() < produced && System.nanoTime() < deadline) Thread.sleep(5);
            return cycles;
        }

        String violations() {
            long twice = 0, never = 0;
            for (long k = 1; k <= produced; k++) {
                AtomicInteger c = counts.get(prefix + k);
                if (c == null) never++;
                else twice += c.get() - 1;
            }
            violationCount = twice + never;
            return violationCount == 0 ? "" : twice + " deliveries of items already consumed, " + never + " items never consumed";
        }
    }

    static int readCount(CuratorFramework c, String path) throws Exception {
        return java.nio.ByteBuffer.wrap(c.getData().forPath(path)).getInt();
    }

    // atomic runs n clients, each with its own DistributedAtomicLong of path, that increment() it until the
    // increment succeeds, as the Go harness's atomic workload (cmd/bench/atomic.go): optimistic tries only,
    // under RetryNTimes(1000, 0), again at once after a conflict; or, promoted, two optimistic tries
    // (RetryNTimes(1, 0)) and then tries under an InterProcessMutex at path-lock (PromotedToLock, RetryNTimes(1000, 0)),
    // the "curator-promoted" row. A conflict is a try beyond an increment's first. It warms up (bench.warmupMs,
    // unrecorded) and then measures, with the same clients.
    static void atomic(String workload, int n, long durationMs, String path, boolean promoted) throws Exception {
        List<CuratorFramework> clients = new ArrayList<>();
        List<DistributedAtomicLong> longs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            CuratorFramework c = client();
            clients.add(c);
            longs.add(promoted
                ? new DistributedAtomicLong(c, path, new RetryNTimes(1, 0),
                    PromotedToLock.builder().lockPath(path + "-lock").retryPolicy(new RetryNTimes(1000, 0)).build())
                : new DistributedAtomicLong(c, path, new RetryNTimes(1000, 0)));
        }
        longs.get(0).initialize(0L);
        long warmupMs = Long.getLong("bench.warmupMs", 0L);
        if (warmupMs > 0) atomicIncrements(clients.get(0), longs, workload, warmupMs, path, false, promoted);
        atomicIncrements(clients.get(0), longs, workload, durationMs, path, true, promoted);
        for (CuratorFramework c : clients) c.close();
    }

    static void atomicIncrements(CuratorFramework reader, List<DistributedAtomicLong> longs, String workload, long durationMs, String path, boolean report, boolean promoted) throws Exception {
        AtomicLong cycles = new AtomicLong(), conflicts = new AtomicLong(), failures = new AtomicLong(), promotedIncs = new AtomicLong(), lockTries = new AtomicLong(), promotedMs = new AtomicLong();
        long before = readLong(reader, path);
        long srv0 = received();
        long start = System.nanoTime(), stop = start + durationMs * 1_000_000L;
        List<Thread> threads = new ArrayList<>();
        for (DistributedAtomicLong l : longs) {
            Thread t = new Thread(() -> {
                try {
                    while (System.nanoTime() < stop) {
                        long underLock = 0, inPromotion = 0;
                        boolean wasPromoted = false;
                        while (true) {
                            AtomicValue<Long> v = l.increment();
                            conflicts.addAndGet(v.getStats().getOptimisticTries() + v.getStats().getPromotedLockTries() - 1);
                            underLock += v.getStats().getPromotedLockTries();
                            inPromotion += v.getStats().getPromotedTimeMs();
                            wasPromoted |= v.getStats().getPromotedLockTries() > 0 || v.getStats().getPromotedTimeMs() > 0;
                            if (v.succeeded()) break;
                            conflicts.incrementAndGet();
                        }
                        lockTries.addAndGet(underLock);
                        if (wasPromoted) {
                            promotedIncs.incrementAndGet();
                            promotedMs.addAndGet(inPromotion);
                        }
                        cycles.incrementAndGet();
                    }
                } catch (Exception e) {
                    failures.incrementAndGet();
                    e.printStackTrace();
                }
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) t.join();
        double secs = (System.nanoTime() - start) / 1e9;
        long srv = received() - srv0;
        long after = readLong(reader, path);
        if (!report) return;
        long n = cycles.get(), violations = Math.abs(before + n - after);
        String how = promoted
            ? "DistributedAtomicLong.increment, RetryNTimes(1, 0), PromotedToLock with RetryNTimes(1000, 0)"
            : "DistributedAtomicLong.increment, RetryNTimes(1000, 0)";
        System.out.printf("{\"impl\":\"%s\",\"workload\":\"%s\",\"clients\":%d,\"cycles\":%d,\"seconds\":%.3f,\"cycles_per_sec\":%.1f,"
                + "\"client_requests_per_cycle\":0,\"server_requests_per_cycle\":%.3f,\"conflicts_per_cycle\":%.4f,"
                + "\"promoted_per_cycle\":%.4f,\"lock_tries_per_cycle\":%.4f,\"promoted_ms\":%.3f,\"violations\":%d,"
                + "\"notes\":\"%s; client-side requests not counted for Java%s%s\"}%n",
            promoted ? "curator-promoted" : "curator", workload, longs.size(), n, secs, n / secs, (double) srv / Math.max(1, n), (double) conflicts.get() / Math.max(1, n),
            (double) promotedIncs.get() / Math.max(1, n), (double) lockTries.get() / Math.max(1, n), (double) promotedMs.get() / Math.max(1, promotedIncs.get()), violations,
            how, violations == 0 ? "" : "; the count went from " + before + " to " + after + " in " + n + " increments",
            failures.get() == 0 ? "" : "; " + failures.get() + " of " + longs.size() + " clients failed (stack traces on stderr)");
        if (failures.get() > 0) System.exit(1);
    }

    static long readLong(CuratorFramework c, String path) throws Exception {
        return java.nio.ByteBuffer.wrap(c.getData().forPath(path)).getLong();
    }

    // herd drains the queue once unrecorded (with bench.warmupMs set: the JIT compiles the hot paths), then
    // once measured, with the same clients.
    static void herd(int waiters, String path) throws Exception {
        List<CuratorFramework> clients = new ArrayList<>();
        for (int i = 0; i <= waiters; i++) clients.add(client());
        if (Long.getLong("bench.warmupMs", 0L) > 0) drain(clients, waiters, path + "-warmup", false);
        drain(clients, waiters, path, true);
        for (CuratorFramework c : clients) c.close();
    }

    static void drain(List<CuratorFramework> clients, int waiters, String path, boolean report) throws Exception {
        InterProcessMutex holder = new InterProcessMutex(clients.get(0), path);
        holder.acquire();
        long srv0 = received();
        CountDownLatch done = new CountDownLatch(waiters);
        for (int i = 1; i <= waiters; i++) {
            InterProcessMutex m = new InterProcessMutex(clients.get(i), path);
            Thread t = new Thread(() -> {
                try { m.acquire(); m.release(); } catch (Exception e) { e.printStackTrace(); }
                done.countDown();
            });
            t.start();
        }
        while (holder.getParticipantNodes().size() < waiters + 1) Thread.sleep(20);
        long start = System.nanoTime();
        holder.release();
        done.await();
        if (!report) return;
        double secs = (System.nanoTime() - start) / 1e9;
        long srv = received() - srv0;
        System.out.printf("{\"impl\":\"curator\",\"workload\":\"herd-%d\",\"clients\":%d,\"waiters\":%d,\"cycles\":%d,\"seconds\":%.3f,\"cycles_per_sec\":%.1f,"
                + "\"drain_seconds\":%.3f,\"client_requests_per_cycle\":0,\"server_requests_per_cycle\":%.3f,\"violations\":0,"
                + "\"notes\":\"notifications not counted for Java\"}%n",
            waiters, waiters + 1, waiters, waiters, secs, waiters / secs, secs, (double) srv / waiters);
    }

    // Failover keeps a standing queue of QUEUE participants (a LeaderSelector whose takeLeadership waits, or a
    // LeaderLatch with a listener), each with its own client; each change closes the leader's client and times,
    // from the start of the close, until the next participant's takeLeadership or isLeader starts. Then a new
    // participant joins at the back. As the Go harness's failover workload (cmd/bench/failover.go).
    //
    // Participants alternate between this JVM and a worker JVM (FailoverWorker), so that a leader and the next
    // one never share a JVM: ZooKeeper 3.8.0's client holds a JVM-wide monitor (a ZooKeeper.States constant)
    // while the send thread of a closing client sleeps 100 ms in its cleanup, and every other client of the JVM
    // blocks on it at its next request; separate processes, as real participants are, do not share it. Both
    // JVMs stamp with System.nanoTime, which on Linux is CLOCK_MONOTONIC, one clock for the machine (checked at
    // the start).
    static final class Failover {
        static final int QUEUE = 3;
        static final long SETTLE_MS = 20; // quiet time after a change (before counting) and after a join
        final String kind, path;
        final BlockingQueue<long[]> led = new LinkedBlockingQueue<>(); // {participant, nanoTime}
        final Set<Integer> leading = new HashSet<>(); // led, session open; guarded by itself
        long violations;
        int next;
        final Members local;
        Worker worker;

        Failover(String kind, String path) {
            this.kind = kind;
            this.path = path;
            local = new Members(kind, path, this::onLead);
        }

        void onLead(int id, long at) {
            synchronized (leading) {
                if (!leading.isEmpty()) violations++;
                leading.add(id);
            }
            led.add(new long[]{id, at});
        }

        long awaitLeader(int id) throws Exception {
            long[] ev = led.poll(30, TimeUnit.SECONDS);
            if (ev == null) throw new IllegalStateException("participant " + id + " did not lead within 30 s");
            if (ev[0] != id) throw new IllegalStateException("participant " + ev[0] + " leads, want " + id);
            return ev[1];
        }

        // join starts participant id (even ids here, odd ones in the worker) and waits until its node is there.
        void join(CuratorFramework observer, List<Integer> queue) throws Exception {
            int id = next++;
            if (id % 2 == 0) local.join(id); else worker.call("join " + id);
            queue.add(id);
            long deadline = System.nanoTime() + 30_000_000_000L;
            while (observer.getChildren().forPath(path).size() != queue.size()) {
                if (System.nanoTime() > deadline) throw new IllegalStateException("participant " + id + " did not join");
                Thread.sleep(1);
            }
            Thread.sleep(SETTLE_MS);
        }

        // close closes participant id's client and returns {start of the close, its duration}, in nanoseconds.
        long[] close(int id) throws Exception {
            synchronized (leading) { leading.remove(id); }
            if (id % 2 == 0) return local.close(id);
            String[] r = worker.call("close " + id).split(" ");
            return new long[]{Long.parseLong(r[1]), Long.parseLong(r[2])};
        }

        void stop(int id) throws Exception {
            if (id % 2 == 0) local.stop(id); else worker.call("stop " + id);
        }

        void run(int count) throws Exception {
            worker = new Worker(kind, path, this::onLead);
            CuratorFramework observer = client();
            observer.create().orSetData().creatingParentsIfNeeded().forPath(path);
            long warmupMs = Long.getLong("bench.warmupMs", 0L);
            if (warmupMs > 0) changes(observer, Integer.MAX_VALUE, System.nanoTime() + warmupMs * 1_000_000L, false);
            changes(observer, count, Long.MAX_VALUE, true);
            observer.close();
            worker.quit();
        }

        void changes(CuratorFramework observer, int count, long until, boolean report) throws Exception {
            List<Integer> queue = new ArrayList<>();
            List<Long> failovers = new ArrayList<>(), closes = new ArrayList<>();
            long srv = 0, start = System.nanoTime();
            while (queue.size() < QUEUE) join(observer, queue);
            awaitLeader(queue.get(0));
            for (int i = 0; i < count && System.nanoTime() < until; i++) {
                int old = queue.get(0), nxt = queue.get(1);
                long srv0 = received();
                long[] c = close(old); // returns once the close call has: the old JVM's stall is over
                closes.add(c[1]);
                failovers.add(awaitLeader(nxt) - c[0]);
                Thread.sleep(SETTLE_MS);
                srv += received() - srv0 - connect.split(",").length; // the second srvr query counts itself at each member
                stop(old);
                queue.remove(0);
                while (queue.size() < QUEUE) join(observer, queue);
            }
            for (int i = queue.size() - 1; i >= 0; i--) { // from the back: nobody takes over
                close(queue.get(i));
                stop(queue.get(i));
            }
            synchronized (leading) { leading.clear(); }
            led.clear();
            if (!report) return;
            double secs = (System.nanoTime() - start) / 1e9;
            int n = failovers.size();
            Collections.sort(failovers);
            Collections.sort(closes);
            System.out.printf("{\"impl\":\"%s\",\"workload\":\"failover\",\"clients\":%d,\"cycles\":%d,\"seconds\":%.3f,\"cycles_per_sec\":%.1f,"
                    + "\"failover_p50_us\":%.0f,\"failover_p99_us\":%.0f,\"close_p50_us\":%.0f,\"client_requests_per_cycle\":0,\"server_requests_per_cycle\":%.3f,"
                    + "\"violations\":%d,\"notes\":\"%s; consecutive leaders in two JVMs; client-side requests not counted for Java\"}%n",
                kind.equals("selector") ? "curator" : "curator-latch", QUEUE, n, secs, n / secs, pct(failovers, 50), pct(failovers, 99), pct(closes, 50),
                (double) srv / Math.max(1, n), violations, kind.equals("selector") ? "LeaderSelector" : "LeaderLatch");
        }
    }

    interface LeadListener { void led(int id, long nanoTime); }

    // Members are the participants one JVM runs, by id.
    static final class Members {
        final String kind, path;
        final LeadListener onLead;
        final java.util.Map<Integer, Member> byId = new java.util.HashMap<>();

        Members(String kind, String path, LeadListener onLead) { this.kind = kind; this.path = path; this.onLead = onLead; }

        final class Member {
            final CuratorFramework client;
            final CountDownLatch resign = new CountDownLatch(1);
            final Closeable recipe;

            Member(int id) throws Exception {
                client = client();
                if (kind.equals("selector")) {
                    LeaderSelector s = new LeaderSelector(client, path, new LeaderSelectorListenerAdapter() {
                        @Override public void takeLeadership(CuratorFramework c) throws Exception {
                            onLead.led(id, System.nanoTime());
                            resign.await();
                        }
                    });
                    s.setId("p" + id);
                    s.start();
                    recipe = s;
                } else {
                    LeaderLatch l = new LeaderLatch(client, path, "p" + id);
                    l.addListener(new LeaderLatchListener() {
                        @Override public void isLeader() { onLead.led(id, System.nanoTime()); }
                        @Override public void notLeader() {}
                    });
                    l.start();
                    recipe = l;
                }
            }
        }

        void join(int id) throws Exception { byId.put(id, new Member(id)); }

        long[] close(int id) {
            Member m = byId.get(id);
            long t0 = System.nanoTime();
            m.client.close();
            return new long[]{t0, System.nanoTime() - t0};
        }

        // stop ends what is left of a participant once its client is closed.
        void stop(int id) {
            Member m = byId.remove(id);
            m.resign.countDown();
            try { m.recipe.close(); } catch (Exception | Error e) { /* its client is closed */ }
        }
    }

    // Worker is the failover's second JVM, driven line by line: "join N", "close N", "stop N" are answered
    // "ok", "closed <start> <duration>", "ok"; "led N <nanoTime>" lines come whenever a participant leads.
    static final class Worker {
        final Process proc;
        final java.io.PrintWriter in;
        final BlockingQueue<String> replies = new LinkedBlockingQueue<>();

        Worker(String kind, String path, LeadListener onLead) throws Exception {
            String javaBin = java.nio.file.Paths.get(System.getProperty("java.home"), "bin", "java").toString();
            proc = new ProcessBuilder(javaBin, "-Xss512k", "-cp", System.getProperty("java.class.path"), "CuratorBench", connect, "failover-worker", kind, path)
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
            in = new java.io.PrintWriter(proc.getOutputStream(), true);
            java.io.BufferedReader out = new java.io.BufferedReader(new java.io.InputStreamReader(proc.getInputStream(), StandardCharsets.UTF_8));
            Thread reader = new Thread(() -> {
                try {
                    for (String line; (line = out.readLine()) != null; ) {
                        if (line.startsWith("led ")) {
                            String[] f = line.split(" ");
                            onLead.led(Integer.parseInt(f[1]), Long.parseLong(f[2]));
                        } else replies.add(line);
                    }
                } catch (java.io.IOException e) { /* the worker ended */ }
                replies.add("ended");
            });
            reader.setDaemon(true);
            reader.start();
            long before = System.nanoTime();
            long t = Long.parseLong(call("clock").split(" ")[1]);
            if (t < before || t > System.nanoTime()) throw new IllegalStateException("the worker JVM's nanoTime is not this one's clock");
        }

        String call(String cmd) throws Exception {
            in.println(cmd);
            String r = replies.poll(60, TimeUnit.SECONDS);
            if (r == null || r.equals("ended")) throw new IllegalStateException("the failover worker did not answer " + cmd);
            return r;
        }

        void quit() throws Exception {
            in.close();
            proc.waitFor(30, TimeUnit.SECONDS);
        }
    }

    // failoverWorker is the worker JVM's main loop (see Worker).
    static void failoverWorker(String kind, String path) throws Exception {
        Object out = new Object();
        java.util.function.Consumer<String> say = line -> { synchronized (out) { System.out.println(line); System.out.flush(); } };
        Members members = new Members(kind, path, (id, at) -> say.accept("led " + id + " " + at));
        java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            String[] f = line.split(" ");
            switch (f[0]) {
                case "clock": say.accept("clock " + System.nanoTime()); break;
                case "join": members.join(Integer.parseInt(f[1])); say.accept("ok"); break;
                case "close": { long[] c = members.close(Integer.parseInt(f[1])); say.accept("closed " + c[0] + " " + c[1]); break; }
                case "stop": members.stop(Integer.parseInt(f[1])); say.accept("ok"); break;
                default: throw new IllegalArgumentException(line);
            }
        }
        for (int id : new ArrayList<>(members.byId.keySet())) { members.close(id); members.stop(id); }
    }

    // propagationSubscribers runs the propagation workload's subscribers (cmd/bench/peersubs.go), driven line by line:
    // "clock" is answered "clock <nanoTime>"; "open <m> <base> <cfg>" opens m clients, each with a CuratorCache of
    // base, and is answered "ready" once every cache is initialized; "close" closes them and is answered "closed".
    // Whenever a cache's listener sees cfg created or changed, it writes "seen <subscriber> <value> <nanoTime>",
    // stamped as the listener starts. The harness publishes. No client closes while updates are measured, so the
    // JVM-wide monitor of ZooKeeper 3.8.0's client (see Failover) holds no subscriber up; the subscribers share
    // one JVM.
    static void propagationSubscribers() throws Exception {
        Object out = new Object();
        java.util.function.Consumer<String> say = line -> { synchronized (out) { System.out.println(line); System.out.flush(); } };
        List<CuratorFramework> clients = new ArrayList<>();
        List<CuratorCache> caches = new ArrayList<>();
        java.io.BufferedReader in = new java.io.BufferedReader(new java.io.InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            String[] f = line.split(" ");
            switch (f[0]) {
                case "clock": say.accept("clock " + System.nanoTime()); break;
                case "open": {
                    int m = Integer.parseInt(f[1]);
                    String base = f[2], cfg = f[3];
                    CountDownLatch initialized = new CountDownLatch(m);
                    for (int i = 0; i < m; i++) {
                        final int sub = i;
                        CuratorFramework c = client();
                        clients.add(c);
                        CuratorCache cache = CuratorCache.build(c, base);
                        cache.listenable().addListener(CuratorCacheListener.builder()
                            .forCreatesAndChanges((old, node) -> {
                                long at = System.nanoTime();
                                if (node.getPath().equals(cfg)) {
                                    String v = new String(node.getData(), StandardCharsets.UTF_8);
                                    say.accept("seen " + sub + " " + (v.isEmpty() ? "-" : v) + " " + at);
                                }
                            })
                            .forInitialized(initialized::countDown)
                            .build());
                        cache.start();
                        caches.add(cache);
                    }
                    if (!initialized.await(60, TimeUnit.SECONDS)) throw new IllegalStateException("caches not initialized within 60 s");
                    say.accept("ready");
                    break;
                }
                case "close": {
                    for (CuratorCache cache : caches) cache.close();
                    List<Thread> closing = new ArrayList<>();
                    for (CuratorFramework c : clients) { // in parallel: each close stalls the JVM's clients ~100 ms (see Failover)
                        Thread t = new Thread(c::close);
                        t.start();
                        closing.add(t);
                    }
                    for (Thread t : closing) t.join();
                    caches.clear();
                    clients.clear();
                    say.accept("closed");
                    break;
                }
                default: throw new IllegalArgumentException(line);
            }
        }
    }

    static double pct(List<Long> sorted, int p) {
        if (sorted.isEmpty()) return 0;
        return sorted.get((int) ((sorted.size() - 1) * p / 100.0)) / 1000.0;
    }

    // received returns the requests every member of the connect string has received (srvr's Received, summed: each
    // member counts its own clients' requests).
    static long received() throws Exception {
        long sum = 0;
        for (String member : connect.split(",")) {
            String[] hp = member.split(":");
            try (Socket s = new Socket(hp[0], Integer.parseInt(hp[1]))) {
                OutputStream o = s.getOutputStream();
                o.write("srvr".getBytes(StandardCharsets.US_ASCII));
                o.flush();
                InputStream in = s.getInputStream();
                String out = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
                for (String line : out.split("\n")) {
                    if (line.startsWith("Received: ")) sum += Long.parseLong(line.substring(10).trim());
                }
            }
        }
        return sum;
    }
}
