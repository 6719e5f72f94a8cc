// GroupPeer is a member of a group run by Curator 5's own GroupMember, for
// the interop test (interop_test.go):
//
//   java GroupPeer <connect> <namespace> <membershipPath> <id> <data>
//
// It connects, starts the GroupMember and prints "READY", then prints
// "MEMBERS id=data id=data ..." (sorted by id) each time
// getCurrentMembers() changes, polling every 20 ms, until stdin ends or
// says "CLOSE"; then it closes the member and the client and prints
// "CLOSED".
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.TreeMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.nodes.GroupMember;
import org.apache.curator.retry.ExponentialBackoffRetry;

public class GroupPeer {
    public static void main(String[] args) throws Exception {
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(args[0])
                .namespace(args[1])
                .sessionTimeoutMs(4000)
                .retryPolicy(new ExponentialBackoffRetry(50, 10))
                .build();
        client.start();
        client.blockUntilConnected();
        GroupMember member = new GroupMember(client, args[2], args[3], args[4].getBytes(StandardCharsets.UTF_8));
        member.start();
        System.out.println("READY");
        System.out.flush();
        Thread poller = new Thread(() -> {
            String last = "";
            while (!Thread.currentThread().isInterrupted()) {
                TreeMap<String, String> sorted = new TreeMap<>();
                for (Map.Entry<String, byte[]> e : member.getCurrentMembers().entrySet()) {
                    sorted.put(e.getKey(), new String(e.getValue(), StandardCharsets.UTF_8));
                }
                StringBuilder line = new StringBuilder("MEMBERS");
                sorted.forEach((k, v) -> line.append(' ').append(k).append('=').append(v));
                if (!line.toString().equals(last)) {
                    last = line.toString();
                    System.out.println(last);
                    System.out.flush();
                }
                try {
                    Thread.sleep(20);
                } catch (InterruptedException e) {
                    return;
                }
            }
        });
        poller.start();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String cmd;
        while ((cmd = in.readLine()) != null && !cmd.equals("CLOSE")) {
        }
        poller.interrupt();
        poller.join();
        member.close();
        client.close();
        System.out.println("CLOSED");
        System.out.flush();
    }
}
