// BarrierPeer runs Curator 5's own barriers, for the interop test
// (interop_test.go):
//
//   java BarrierPeer <connect>
//
// It prints "READY" and then obeys one command per line on stdin:
//
//   MEMBER <id> <path> <members>
//        a new Curator client and a DistributedDoubleBarrier(path, members)
//        on a thread of its own, which calls enter(), prints
//        "ENTERED <id> <members seen> <ready>" (the barrier's children other
//        than "ready", and whether "ready" exists, listed right after enter()
//        returned), waits for LEAVE, calls leave() and prints "LEFT <id>".
//        It answers "STARTED <id>" once its client is connected.
//   LEAVE
//        lets every member that entered leave; answers "LEAVING <n>".
//   SET <path> / REMOVE <path>
//        DistributedBarrier's setBarrier / removeBarrier; answers "SET" / "REMOVED".
//   WAIT <path>
//        waitOnBarrier() on a thread of its own; prints "WAITED" when it returns.
//
// and exits at the end of stdin. A command that fails answers
// "ERR <command> <exception>"; a member that fails prints "ERR MEMBER <id> <exception>".
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicReference;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.barriers.DistributedBarrier;
import org.apache.curator.framework.recipes.barriers.DistributedDoubleBarrier;
import org.apache.curator.retry.ExponentialBackoffRetry;

public class BarrierPeer {
    private static String connect;
    private static final AtomicReference<CountDownLatch> leave = new AtomicReference<>(new CountDownLatch(1));
    private static int entered;

    public static void main(String[] args) throws Exception {
        connect = args[0];
        CuratorFramework admin = client();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        out("READY");
        for (String line; (line = in.readLine()) != null; ) {
            String[] f = line.trim().split(" ");
            try {
                switch (f[0]) {
                    case "MEMBER": member(f[1], f[2], Integer.parseInt(f[3])); break;
                    case "LEAVE": {
                        int n;
                        synchronized (BarrierPeer.class) {
                            n = entered;
                            entered = 0;
                        }
                        leave.getAndSet(new CountDownLatch(1)).countDown();
                        out("LEAVING " + n);
                        break;
                    }
                    case "SET": new DistributedBarrier(admin, f[1]).setBarrier(); out("SET"); break;
                    case "REMOVE": new DistributedBarrier(admin, f[1]).removeBarrier(); out("REMOVED"); break;
                    case "WAIT": {
                        String path = f[1];
                        new Thread(() -> {
                            try {
                                new DistributedBarrier(admin, path).waitOnBarrier();
                                out("WAITED");
                            } catch (Exception e) {
                                e.printStackTrace();
                                out("ERR WAIT " + e);
                            }
                        }).start();
                        break;
                    }
                    default: out("ERR " + f[0] + " unknown command");
                }
            } catch (Exception e) {
                e.printStackTrace();
                out("ERR " + f[0] + " " + e);
            }
        }
        System.exit(0);
    }

    static CuratorFramework client() throws Exception {
        CuratorFramework c = CuratorFrameworkFactory.newClient(connect, 10000, 5000, new ExponentialBackoffRetry(20, 5));
        c.start();
        c.blockUntilConnected();
        return c;
    }

    static void member(String id, String path, int members) throws Exception {
        CuratorFramework c = client();
        DistributedDoubleBarrier b = new DistributedDoubleBarrier(c, path, members);
        out("STARTED " + id);
        new Thread(() -> {
            try {
                CountDownLatch mine = leave.get();
                b.enter();
                List<String> kids = c.getChildren().forPath(path);
                boolean ready = kids.remove("ready");
                synchronized (BarrierPeer.class) {
                    entered++;
                    mine = leave.get();
                }
                out("ENTERED " + id + " " + kids.size() + " " + ready);
                mine.await();
                b.leave();
                out("LEFT " + id);
            } catch (Exception e) {
                e.printStackTrace();
                out("ERR MEMBER " + id + " " + e);
            } finally {
                c.close();
            }
        }).start();
    }

    static synchronized void out(String s) {
        System.out.println(s);
        System.out.flush();
    }
}
