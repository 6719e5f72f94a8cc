// CuratorBench runs the harness's workloads with Apache Curator and prints
// one JSON line per workload, in the Go harness's format.
//
// Usage: CuratorBench <connect> <workload> <durationMs> [herdWaiters]
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.retry.ExponentialBackoffRetry;

public class CuratorBench {

    static String connect;

    public static void main(String[] a) throws Exception {
        connect = a[0];
        String workload = a[1];
        long duration = Long.parseLong(a[2]);
        String base = "/bench/curator/" + workload;
        switch (workload) {
            case "mutex-uncontended": contention(workload, 1, duration, base, "mutex", 1); break;
            case "mutex-contended": contention(workload, 8, duration, base, "mutex", 1); break;
            case "semaphore": contention(workload, 8, duration, base, "semaphore", 3); break;
            case "rwlock": contention(workload, 8, duration, base, "rwlock", 1); break;
            case "herd": herd(Integer.parseInt(a[3]), base + "-" + a[3]); break;
            default: throw new IllegalArgumentException(workload);
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

    static double pct(List<Long> sorted, int p) {
        if (sorted.isEmpty()) return 0;
        return sorted.get((int) ((sorted.size() - 1) * p / 100.0)) / 1000.0;
    }

    static long received() throws Exception {
        String[] hp = connect.split(",")[0].split(":");
        try (Socket s = new Socket(hp[0], Integer.parseInt(hp[1]))) {
            OutputStream o = s.getOutputStream();
            o.write("srvr".getBytes(StandardCharsets.US_ASCII));
            o.flush();
            InputStream in = s.getInputStream();
            String out = new String(in.readAllBytes(), StandardCharsets.US_ASCII);
            for (String line : out.split("\n")) {
                if (line.startsWith("Received: ")) return Long.parseLong(line.substring(10).trim());
            }
        }
        return 0;
    }
}
