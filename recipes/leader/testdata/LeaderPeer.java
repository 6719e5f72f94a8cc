// LeaderPeer is one participant of an election run by Curator 5's own
// LeaderLatch or LeaderSelector, for the interop test (interop_test.go):
//
//   java LeaderPeer <connect> <namespace> <latch|selector> <electionPath> <markerDir> <id> <sessionMs>
//
// It connects (Curator's namespace, the session timeout asked for), prints
// "READY <session>" and then obeys one command per line on stdin:
//
//   JOIN   start the latch or the selector (autoRequeue); answers "JOINED"
//   VIEW   answers "VIEW\t<hasLeadership>\t<getLeader id>\t<session>\t<marks>\t<getParticipants>",
//          the participants as "id* id id" in Curator's order, the leader starred
//   CLOSE  stop acting as leader, close the recipe and the client; answers "CLOSED" and exits
//
// and exits at once at the end of stdin. A command that fails answers
// "ERR <command> <exception>". Sessions are printed in hex.
//
// While it leads it does the test's marker check over and over: it creates an
// ephemeral sequential node <markerDir>/m-<id>- holding its id, lists <markerDir>,
// and, if it finds any other marker there, prints
// "VIOLATION <id>\t<markers>\t<election>" with what it saw (each entry
// "name|data|ephemeralOwner", comma-separated; the election's nodes in
// Curator's order), then deletes its marker. Two participants acting as
// leader at once are seen that way. A check that outlived the term it began
// in (the session changed, or the latch no longer leads) prints
// "SPANNED <marker> <id> ..." instead: its marker, which another leader may
// have seen, was made after the term it was checked in. It prints "LEADING <path> <owner> <session>"
// each time leadership begins (path: the latch's node and its ephemeral owner,
// "-" for a selector or a node gone) and "NOTLEADING" when a selector's term
// ends, so a latch claiming leadership with a node of an earlier session
// (CURATOR-696, Curator 5.4.0 to 5.6) shows up. It prints
// "STATE <connection state> <session>" at each change of Curator's
// connection state.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.apache.curator.framework.recipes.leader.LeaderSelector;
import org.apache.curator.framework.recipes.leader.LeaderSelectorListenerAdapter;
import org.apache.curator.framework.recipes.leader.Participant;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.utils.ZKPaths;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

public class LeaderPeer {
    private static CuratorFramework client;
    private static String id, markerDir, electionPath;
    private static LeaderLatch latch;
    private static LeaderSelector selector;
    private static final AtomicLong marks = new AtomicLong();
    private static final Object markLock = new Object(); // held for one marker check
    private static volatile boolean stopping;

    public static void main(String[] args) throws Exception {
        String connect = args[0], namespace = args[1], mode = args[2];
        electionPath = args[3];
        markerDir = args[4];
        id = args[5];
        int sessionMs = Integer.parseInt(args[6]);
        client = CuratorFrameworkFactory.builder()
                .connectString(connect)
                .namespace(namespace)
                .sessionTimeoutMs(sessionMs)
                .connectionTimeoutMs(5000)
                .retryPolicy(new ExponentialBackoffRetry(50, 10))
                .build();
        client.getConnectionStateListenable().addListener((c, state) -> out("STATE " + state + " " + session()));
        client.start();
        client.blockUntilConnected();
        switch (mode) {
            case "latch":
                latch = new LeaderLatch(client, electionPath, id);
                // Off ZooKeeper's event thread: leading() reads the node.
                latch.addListener(new LeaderLatchListener() {
                    public void isLeader() { leading(latch.getOurPath()); }
                    public void notLeader() { out("NOTLEADING"); }
                }, Executors.newSingleThreadExecutor(r -> {
                    Thread t = new Thread(r);
                    t.setDaemon(true);
                    return t;
                }));
                break;
            case "selector":
                selector = new LeaderSelector(client, electionPath, new LeaderSelectorListenerAdapter() {
                    public void takeLeadership(CuratorFramework c) throws Exception {
                        leading(null);
                        try {
                            while (!stopping) {
                                markOnce();
                                Thread.sleep(5);
                            }
                            Thread.sleep(Long.MAX_VALUE); // until close interrupts
                        } finally {
                            out("NOTLEADING");
                        }
                    }
                });
                selector.setId(id);
                selector.autoRequeue();
                break;
            default:
                throw new IllegalArgumentException(mode);
        }
        out("READY " + session());
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            try {
                switch (line) {
                    case "JOIN": join(); out("JOINED"); break;
                    case "VIEW": out(view()); break;
                    case "CLOSE": close(); out("CLOSED"); Runtime.getRuntime().halt(0); break;
                    default: out("ERR " + line + " unknown command");
                }
            } catch (Exception e) {
                out("ERR " + line + " " + e.toString().replace('\n', ' '));
            }
        }
        Runtime.getRuntime().halt(0); // the test is gone
    }

    private static synchronized void out(String line) {
        System.out.println(line);
        System.out.flush();
    }

    private static String session() {
        try {
            return Long.toHexString(client.getZookeeperClient().getZooKeeper().getSessionId());
        } catch (Exception e) {
            return "0";
        }
    }

    private static void join() throws Exception {
        if (latch != null) {
            latch.start();
            Thread marker = new Thread(() -> {
                while (!stopping) {
                    try {
                        if (latch.hasLeadership()) {
                            markOnce();
                        }
                        Thread.sleep(5);
                    } catch (InterruptedException e) {
                        return;
                    } catch (Exception e) {
                        out("ERR marker " + e.toString().replace('\n', ' '));
                    }
                }
            });
            marker.setDaemon(true);
            marker.start();
        } else {
            selector.start();
        }
    }

    // leading reports a new term: the latch's node, its owner and our session.
    private static void leading(String path) {
        String owner = "-";
        if (path != null) {
            try {
                Stat st = client.checkExists().forPath(path);
                owner = st == null ? "-" : Long.toHexString(st.getEphemeralOwner());
            } catch (Exception e) {
                owner = "?";
            }
        }
        out("LEADING " + (path == null ? "-" : path) + " " + owner + " " + session());
    }

    // markOnce is the marker check, once, if the participant still means to lead.
    // A check that outlived its term is not reported: one begun just before an
    // outage waits out Curator's retries, and its create may then be made by
    // the session after it, which another leads.
    private static void markOnce() throws Exception {
        synchronized (markLock) {
            if (stopping || (latch != null && !latch.hasLeadership())) {
                return;
            }
            String began = session();
            String mine = client.create().creatingParentContainersIfNeeded()
                    .withMode(CreateMode.EPHEMERAL_SEQUENTIAL)
                    .forPath(markerDir + "/m-" + id + "-", id.getBytes(StandardCharsets.UTF_8));
            List<String> inside = client.getChildren().forPath(markerDir);
            boolean sameTerm = !began.equals("0") && began.equals(session()) && (latch == null || latch.hasLeadership());
            if (!sameTerm) { // said even when alone: another leader's check may see the marker
                out("SPANNED " + ZKPaths.getNodeFromPath(mine) + " " + id + " began its marker check in session " + began
                        + ", and made the marker in " + session());
            } else if (inside.size() > 1) {
                out("VIOLATION " + id + "\t" + describe(markerDir, inside) + "\t"
                        + describe(electionPath, sortedElection()));
            }
            client.delete().forPath(mine);
            marks.incrementAndGet();
        }
    }

    // sortedElection lists the election's nodes in Curator's order (on the
    // sequence number, the ten digits at the end of every name).
    private static List<String> sortedElection() throws Exception {
        List<String> names = new ArrayList<>(client.getChildren().forPath(electionPath));
        names.sort((a, b) -> a.substring(a.length() - 10).compareTo(b.substring(b.length() - 10)));
        return names;
    }

    private static String describe(String dir, List<String> names) {
        StringBuilder b = new StringBuilder();
        for (String n : names) {
            String data = "", owner = "gone";
            try {
                Stat st = new Stat();
                data = new String(client.getData().storingStatIn(st).forPath(dir + "/" + n), StandardCharsets.UTF_8);
                owner = Long.toHexString(st.getEphemeralOwner());
            } catch (KeeperException.NoNodeException e) {
                // gone since the listing
            } catch (Exception e) {
                owner = "?";
            }
            if (b.length() > 0) {
                b.append(',');
            }
            b.append(n).append('|').append(data).append('|').append(owner);
        }
        return b.toString();
    }

    private static String view() throws Exception {
        Collection<Participant> ps = latch != null ? latch.getParticipants() : selector.getParticipants();
        Participant leader = latch != null ? latch.getLeader() : selector.getLeader();
        boolean has = latch != null ? latch.hasLeadership() : selector.hasLeadership();
        StringBuilder b = new StringBuilder();
        for (Participant p : ps) {
            if (b.length() > 0) {
                b.append(' ');
            }
            b.append(p.getId()).append(p.isLeader() ? "*" : "");
        }
        return "VIEW\t" + has + "\t" + leader.getId() + "\t" + session() + "\t" + marks.get() + "\t" + b;
    }

    // close stops the marker check (waiting for one under way), then closes
    // the recipe, which deletes its node, and the client.
    private static void close() throws Exception {
        stopping = true;
        synchronized (markLock) {
            // a check under way has ended
        }
        if (latch != null) {
            latch.close();
        } else {
            selector.close();
        }
        client.close();
    }
}
