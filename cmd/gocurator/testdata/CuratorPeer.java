// CuratorPeer runs real Apache Curator locks against the same paths as the Go
// tests, to prove Go and Java processes exclude each other.
//
// Usage: CuratorPeer <connect> <kind> <lockPath> <occupancyPath> <cycles> [maxLeases]
// kind: mutex | read | write | semaphore. In each critical section it adds an
// ephemeral sequential marker under occupancyPath ("r-" for readers, "w-"
// otherwise), lists the markers and counts a violation if the lock's rule is
// broken, then removes its marker. With -Dpeer.waitForQueue=true, on its
// first hold it waits (up to 20 s) for a second participant, prints
// "HOLDING <participants>", and goes on. It prints "DONE violations=<n>" at
// the end.
import java.util.Collection;
import java.util.List;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.locks.InterProcessLock;
import org.apache.curator.framework.recipes.locks.InterProcessMutex;
import org.apache.curator.framework.recipes.locks.InterProcessReadWriteLock;
import org.apache.curator.framework.recipes.locks.InterProcessSemaphoreV2;
import org.apache.curator.framework.recipes.locks.Lease;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.zookeeper.CreateMode;

public class CuratorPeer {
    public static void main(String[] args) throws Exception {
        String connect = args[0], kind = args[1], path = args[2], occ = args[3];
        int cycles = Integer.parseInt(args[4]);
        int max = args.length > 5 ? Integer.parseInt(args[5]) : 1;
        CuratorFramework client = CuratorFrameworkFactory.newClient(connect, 10000, 5000, new ExponentialBackoffRetry(50, 10));
        client.start();
        client.blockUntilConnected();
        InterProcessLock lock = null;
        InterProcessSemaphoreV2 sem = null;
        switch (kind) {
            case "mutex": lock = new InterProcessMutex(client, path); break;
            case "read": lock = new InterProcessReadWriteLock(client, path).readLock(); break;
            case "write": lock = new InterProcessReadWriteLock(client, path).writeLock(); break;
            case "semaphore": sem = new InterProcessSemaphoreV2(client, path, max); break;
            default: throw new IllegalArgumentException(kind);
        }
        String marker = kind.equals("read") ? "r-" : "w-";
        int violations = 0;
        for (int i = 0; i < cycles; i++) {
            Lease lease = null;
            if (sem != null) {
                lease = sem.acquire();
            } else {
                lock.acquire();
            }
            if (i == 0 && Boolean.getBoolean("peer.waitForQueue")) {
                // Hold until another participant queues (at most 20 s), so the
                // test sees both sides in one queue.
                Collection<String> who = participants(lock, sem);
                for (long end = System.currentTimeMillis() + 20000; who.size() < 2 && System.currentTimeMillis() < end; who = participants(lock, sem)) {
                    Thread.sleep(10);
                }
                System.out.println("HOLDING " + String.join(",", who));
                System.out.flush();
            }
            String mine = client.create().creatingParentContainersIfNeeded().withMode(CreateMode.EPHEMERAL_SEQUENTIAL).forPath(occ + "/" + marker);
            List<String> inside = client.getChildren().forPath(occ);
            long writers = inside.stream().filter(n -> n.startsWith("w-")).count();
            boolean bad;
            switch (kind) {
                case "read": bad = writers > 0; break;
                case "semaphore": bad = inside.size() > max; break;
                default: bad = inside.size() > 1; break;
            }
            if (bad) {
                violations++;
                System.out.println("VIOLATION " + inside);
            }
            Thread.sleep(1);
            client.delete().forPath(mine);
            if (sem != null) {
                sem.returnLease(lease);
            } else {
                lock.release();
            }
        }
        System.out.println("DONE violations=" + violations);
        client.close();
    }

    private static Collection<String> participants(InterProcessLock lock, InterProcessSemaphoreV2 sem) throws Exception {
        return sem != null ? sem.getParticipantNodes() : ((InterProcessMutex) lock).getParticipantNodes();
    }
}
