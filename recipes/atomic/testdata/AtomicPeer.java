// AtomicPeer is Curator 5's own DistributedAtomicLong, for the interop tests
// (interop_test.go):
//
//   java AtomicPeer <connect>
//
// It prints "READY" and then obeys one command per line on stdin:
//
//   RUN <clients> <path> <lockPath|-> <increments> <retries>
//        opens <clients> Curator clients on <connect>, each with a
//        DistributedAtomicLong at <path> (optimistic tries under
//        RetryNTimes(<retries>, 5 ms); promoted to an InterProcessMutex at <lockPath>
//        under RetryNTimes(3, 5 ms) unless it is "-"), answers "SET", waits
//        for a line "GO", then has each client call increment() <increments>
//        times on a thread of its own. It answers
//        "DONE <succeeded> <failed> <optimisticTries> <promotedTries> <posts>",
//        posts being the postValue of every increment that succeeded,
//        comma-separated, and closes the clients.
//   CACHED <clients> <path> <factor> <count>
//        opens <clients> Curator clients, each with a CachedAtomicLong of <factor>
//        over a DistributedAtomicLong at <path> (RetryNTimes(1000, 0)), answers
//        "SET", waits for a line "GO", then has each call next() <count> times on a
//        thread of its own. It answers "CACHED <succeeded> <failed> <posts>", posts
//        being the postValue of every next() that succeeded, comma-separated, and
//        closes the clients.
//   ONCE <connect> <path>
//        one increment() by a new client at <connect> (optimistic only,
//        RetryNTimes(3, 5 ms)); answers "ONCE <succeeded> <pre> <post>
//        <optimisticTries>".
//   LOCK <path>   takes an InterProcessMutex at <path>; answers "LOCKED"
//   UNLOCK        releases it; answers "UNLOCKED"
//
// and exits at the end of stdin. A command that fails answers
// "ERR <command> <exception>".
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.atomic.AtomicValue;
import org.apache.curator.framework.recipes.atomic.CachedAtomicLong;
import org.apache.curator.framework.recipes.atomic.DistributedAtomicLong;
import org.apache.curator.framework.recipes.atomic.PromotedToLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.retry.RetryNTimes;

public class AtomicPeer {
    private static String connect;
    private static CuratorFramework lockClient;
    private static InterProcessMutex mutex;

    public static void main(String[] args) throws Exception {
        connect = args[0];
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        out("READY");
        for (String line; (line = in.readLine()) != null; ) {
            String[] f = line.trim().split(" ");
            try {
                switch (f[0]) {
                    case "RUN": run(in, Integer.parseInt(f[1]), f[2], f[3], Integer.parseInt(f[4]), Integer.parseInt(f[5])); break;
                    case "CACHED": cached(in, Integer.parseInt(f[1]), f[2], Integer.parseInt(f[3]), Integer.parseInt(f[4])); break;
                    case "ONCE": once(f[1], f[2]); break;
                    case "LOCK":
                        lockClient = client(connect);
                        mutex = new InterProcessMutex(lockClient, f[1]);
                        mutex.acquire();
                        out("LOCKED");
                        break;
                    case "UNLOCK":
                        mutex.release();
                        lockClient.close();
                        out("UNLOCKED");
                        break;
                    default: out("ERR " + f[0] + " unknown command");
                }
            } catch (Exception e) {
                e.printStackTrace();
                out("ERR " + f[0] + " " + e);
            }
        }
        System.exit(0);
    }

    static CuratorFramework client(String connect) throws Exception {
        CuratorFramework c = CuratorFrameworkFactory.newClient(connect, 10000, 5000, new ExponentialBackoffRetry(20, 5));
        c.start();
        c.blockUntilConnected();
        return c;
    }

    static void run(BufferedReader in, int n, String path, String lockPath, int increments, int retries) throws Exception {
        List<CuratorFramework> clients = new ArrayList<>();
        List<DistributedAtomicLong> longs = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            CuratorFramework c = client(connect);
            clients.add(c);
            PromotedToLock promo = lockPath.equals("-") ? null
                : PromotedToLock.builder().lockPath(lockPath).retryPolicy(new RetryNTimes(3, 5)).build();
            longs.add(new DistributedAtomicLong(c, path, new RetryNTimes(retries, 5), promo));
        }
        out("SET");
        String go = in.readLine();
        if (!"GO".equals(go)) throw new IllegalStateException("expected GO, got " + go);
        AtomicLong succeeded = new AtomicLong(), failed = new AtomicLong(), optimistic = new AtomicLong(), promoted = new AtomicLong();
        ConcurrentLinkedQueue<Long> posts = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        for (DistributedAtomicLong l : longs) {
            Thread t = new Thread(() -> {
                try {
                    for (int i = 0; i < increments; i++) {
                        AtomicValue<Long> v = l.increment();
                        optimistic.addAndGet(v.getStats().getOptimisticTries());
                        promoted.addAndGet(v.getStats().getPromotedLockTries());
                        if (v.succeeded()) {
                            succeeded.incrementAndGet();
                            posts.add(v.postValue());
                        } else {
                            failed.incrementAndGet();
                        }
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) t.join();
        for (CuratorFramework c : clients) c.close();
        if (!errors.isEmpty()) throw new Exception("an increment failed", errors.peek());
        StringBuilder sb = new StringBuilder();
        for (Long p : posts) {
            if (sb.length() > 0) sb.append(',');
            sb.append(p);
        }
        out("DONE " + succeeded + " " + failed + " " + optimistic + " " + promoted + " " + (sb.length() == 0 ? "-" : sb));
    }

    static void cached(BufferedReader in, int n, String path, int factor, int count) throws Exception {
        List<CuratorFramework> clients = new ArrayList<>();
        List<CachedAtomicLong> cached = new ArrayList<>();
        for (int i = 0; i < n; i++) {
            CuratorFramework c = client(connect);
            clients.add(c);
            cached.add(new CachedAtomicLong(new DistributedAtomicLong(c, path, new RetryNTimes(1000, 0)), factor));
        }
        out("SET");
        String go = in.readLine();
        if (!"GO".equals(go)) throw new IllegalStateException("expected GO, got " + go);
        AtomicLong succeeded = new AtomicLong(), failed = new AtomicLong();
        ConcurrentLinkedQueue<Long> posts = new ConcurrentLinkedQueue<>();
        ConcurrentLinkedQueue<Throwable> errors = new ConcurrentLinkedQueue<>();
        List<Thread> threads = new ArrayList<>();
        for (CachedAtomicLong l : cached) {
            Thread t = new Thread(() -> {
                try {
                    for (int i = 0; i < count; i++) {
                        AtomicValue<Long> v = l.next();
                        if (v.succeeded()) {
                            succeeded.incrementAndGet();
                            posts.add(v.postValue());
                        } else {
                            failed.incrementAndGet();
                        }
                    }
                } catch (Throwable e) {
                    errors.add(e);
                }
            });
            threads.add(t);
            t.start();
        }
        for (Thread t : threads) t.join();
        for (CuratorFramework c : clients) c.close();
        if (!errors.isEmpty()) throw new Exception("a next() failed", errors.peek());
        StringBuilder sb = new StringBuilder();
        for (Long p : posts) {
            if (sb.length() > 0) sb.append(',');
            sb.append(p);
        }
        out("CACHED " + succeeded + " " + failed + " " + (sb.length() == 0 ? "-" : sb));
    }

    static void once(String at, String path) throws Exception {
        CuratorFramework c = client(at);
        try {
            AtomicValue<Long> v = new DistributedAtomicLong(c, path, new RetryNTimes(3, 5)).increment();
            out("ONCE " + v.succeeded() + " " + v.preValue() + " " + v.postValue() + " " + v.getStats().getOptimisticTries());
        } finally {
            c.close();
        }
    }

    static synchronized void out(String s) {
        System.out.println(s);
        System.out.flush();
    }
}
