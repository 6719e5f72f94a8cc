// SharedCountPeer is Curator 5's own SharedCount, for the interop test:
//
//   java SharedCountPeer <connect> <path> <increments>
//
// It prints READY <count> once started, then adds one to the count
// <increments> times with trySetCount (reading again after every refusal),
// and prints DONE <count as it last saw it> <refusals>.
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.shared.SharedCount;
import org.apache.curator.framework.recipes.shared.VersionedValue;
import org.apache.curator.retry.ExponentialBackoffRetry;

public class SharedCountPeer {
    public static void main(String[] args) throws Exception {
        String connect = args[0], path = args[1];
        int increments = Integer.parseInt(args[2]);
        CuratorFramework client = CuratorFrameworkFactory.newClient(connect, new ExponentialBackoffRetry(100, 10));
        client.start();
        client.blockUntilConnected();
        SharedCount count = new SharedCount(client, path, 0);
        count.start();
        System.out.println("READY " + count.getCount());
        System.out.flush();
        int refusals = 0;
        for (int i = 0; i < increments; i++) {
            while (true) {
                VersionedValue<Integer> v = count.getVersionedValue();
                if (count.trySetCount(v, v.getValue() + 1)) {
                    break;
                }
                refusals++;
            }
        }
        System.out.println("DONE " + count.getCount() + " " + refusals);
        System.out.flush();
        count.close();
        client.close();
    }
}
