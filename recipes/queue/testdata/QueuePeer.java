// QueuePeer is Curator 5's own queues, for the interop tests, driven line by line:
//
//   java QueuePeer <connect> <namespace>
//
// It prints READY once connected, then answers each command on stdin with one line, "ok ..." or
// "error <message>":
//
//   simple-offer <path> <item>                  SimpleDistributedQueue.offer
//   simple-take <path> <n>                      n takes; answers "ok <item> <item> ..."
//   put <kind> <path> <arg> <item>              a producer-only queue's put; kind: queue, id, priority, delay;
//                                               arg: "-", the id, the priority, or the due epoch in ms
//   putmulti <kind> <path> <arg> <item,item,..> putMulti (queue, priority, delay)
//   remove <path> <lockpath|-> <id>             DistributedIdQueue.remove; answers "ok <count>"
//   consume <h> <kind> <path> <lockpath|-> <fail,..|-> [<hold,..>]
//                                               starts a consumer (handle h); each item it is given is
//                                               printed as "item <h> <item> <epoch ms> ok", or with "fail"
//                                               for an item in the fail list, which throws the first time
//                                               this consumer is given it; an item in the hold list is
//                                               printed as "holding <h> <item>", and the consumer then waits
//                                               for "release <item>" before it returns
//   release <item>                              lets a consumer holding item return
//   stop <h>                                    closes consumer h
//   sharder <h> <path> <leaderpath> <lockroot> <threshold> <checkms> <max>
//                                               starts QueueSharder h of lock-safe DistributedQueues (foreground
//                                               puts; shard <path>/<name> locked under <lockroot>/<name>); their
//                                               consumers wait for "open <h>" and then print each item as
//                                               "item <h> <item>@<name> <epoch ms> ok"
//   sharder-put <h> <item>                      getQueue().put(item)
//   sharder-paths <h>                           answers "ok <path> <path> ...", getQueuePaths() sorted
//   open <h>                                    lets sharder h's consumers go on
//   sharder-stop <h>                            closes sharder h
//
// Producers put in Curator's default way (in the background) and flushPuts before answering, so
// that "ok" means the node exists.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.queue.DistributedDelayQueue;
import org.apache.curator.framework.recipes.queue.DistributedIdQueue;
import org.apache.curator.framework.recipes.queue.DistributedPriorityQueue;
import org.apache.curator.framework.recipes.queue.DistributedQueue;
import org.apache.curator.framework.recipes.queue.MultiItem;
import org.apache.curator.framework.recipes.queue.QueueBuilder;
import org.apache.curator.framework.recipes.queue.QueueAllocator;
import org.apache.curator.framework.recipes.queue.QueueConsumer;
import org.apache.curator.framework.recipes.queue.QueueSharder;
import org.apache.curator.framework.recipes.queue.QueueSharderPolicies;
import org.apache.curator.framework.recipes.queue.QueueSerializer;
import org.apache.curator.framework.recipes.queue.SimpleDistributedQueue;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.utils.ZKPaths;

public class QueuePeer {
    static final Object out = new Object();

    static void say(String line) {
        synchronized (out) {
            System.out.println(line);
            System.out.flush();
        }
    }

    static final QueueSerializer<String> UTF8 = new QueueSerializer<String>() {
        public byte[] serialize(String item) { return item.getBytes(StandardCharsets.UTF_8); }
        public String deserialize(byte[] bytes) { return new String(bytes, StandardCharsets.UTF_8); }
    };

    static CuratorFramework client;
    static final Map<String, AutoCloseable> producers = new HashMap<>();
    static final Map<String, AutoCloseable> consumers = new HashMap<>();

    public static void main(String[] a) throws Exception {
        client = CuratorFrameworkFactory.builder().connectString(a[0]).namespace(a[1])
            .retryPolicy(new ExponentialBackoffRetry(50, 10)).sessionTimeoutMs(10000).build();
        client.start();
        client.blockUntilConnected();
        say("READY");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            if (line.equals("quit")) break;
            try {
                say(run(line.split(" ")));
            } catch (Exception e) {
                say("error " + e.toString().replace('\n', ' '));
            }
        }
        for (QueueSharder<String, DistributedQueue<String>> x : sharders.values()) x.close();
        for (AutoCloseable c : consumers.values()) c.close();
        for (AutoCloseable c : producers.values()) c.close();
        client.close();
        System.exit(0);
    }

    static String run(String[] f) throws Exception {
        switch (f[0]) {
            case "simple-offer":
                new SimpleDistributedQueue(client, f[1]).offer(f[2].getBytes(StandardCharsets.UTF_8));
                return "ok";
            case "simple-take": {
                SimpleDistributedQueue q = new SimpleDistributedQueue(client, f[1]);
                StringBuilder b = new StringBuilder("ok");
                for (int i = 0, n = Integer.parseInt(f[2]); i < n; i++) {
                    byte[] item = q.poll(30, TimeUnit.SECONDS);
                    if (item == null) throw new IllegalStateException("nothing to take after 30 s");
                    b.append(' ').append(new String(item, StandardCharsets.UTF_8));
                }
                return b.toString();
            }
            case "put": return put(f[1], f[2], f[3], Arrays.asList(f[4]), false);
            case "putmulti": return put(f[1], f[2], f[3], Arrays.asList(f[4].split(",")), true);
            case "remove": {
                QueueBuilder<String> b = QueueBuilder.builder(client, null, UTF8, f[1]);
                if (!f[2].equals("-")) b.lockPath(f[2]);
                DistributedIdQueue<String> q = b.buildIdQueue();
                q.start();
                try {
                    return "ok " + q.remove(f[3]);
                } finally {
                    q.close();
                }
            }
            case "consume": return consume(f[1], f[2], f[3], f[4], f[5], f.length > 6 ? f[6] : "");
            case "release": release(f[1]).countDown(); return "ok";
            case "stop": consumers.remove(f[1]).close(); return "ok";
            case "sharder": return sharder(f[1], f[2], f[3], f[4], Integer.parseInt(f[5]), Integer.parseInt(f[6]), Integer.parseInt(f[7]));
            case "sharder-put": sharders.get(f[1]).getQueue().put(f[2]); return "ok";
            case "sharder-paths": {
                List<String> paths = new ArrayList<>(sharders.get(f[1]).getQueuePaths());
                java.util.Collections.sort(paths);
                return ("ok " + String.join(" ", paths)).trim();
            }
            case "open": gate(f[1]).countDown(); return "ok";
            case "sharder-stop": sharders.remove(f[1]).close(); return "ok";
            default: throw new IllegalArgumentException(f[0]);
        }
    }

    static MultiItem<String> multi(List<String> items) {
        Iterator<String> it = items.iterator();
        return () -> it.hasNext() ? it.next() : null;
    }

    static String put(String kind, String path, String arg, List<String> items, boolean isMulti) throws Exception {
        String key = kind + " " + path;
        AutoCloseable p = producers.get(key);
        if (p == null) {
            QueueBuilder<String> b = QueueBuilder.builder(client, null, UTF8, path);
            switch (kind) {
                case "queue": { DistributedQueue<String> q = b.buildQueue(); q.start(); p = q; break; }
                case "id": { DistributedIdQueue<String> q = b.buildIdQueue(); q.start(); p = q; break; }
                case "priority": { DistributedPriorityQueue<String> q = b.buildPriorityQueue(0); q.start(); p = q; break; }
                case "delay": { DistributedDelayQueue<String> q = b.buildDelayQueue(); q.start(); p = q; break; }
                default: throw new IllegalArgumentException(kind);
            }
            producers.put(key, p);
        }
        boolean flushed;
        switch (kind) {
            case "queue": {
                DistributedQueue<String> q = (DistributedQueue<String>) p;
                if (isMulti) q.putMulti(multi(items)); else q.put(items.get(0));
                flushed = q.flushPuts(10, TimeUnit.SECONDS);
                break;
            }
            case "id": {
                DistributedIdQueue<String> q = (DistributedIdQueue<String>) p;
                q.put(items.get(0), arg);
                flushed = q.flushPuts(10, TimeUnit.SECONDS);
                break;
            }
            case "priority": {
                DistributedPriorityQueue<String> q = (DistributedPriorityQueue<String>) p;
                if (isMulti) q.putMulti(multi(items), Integer.parseInt(arg)); else q.put(items.get(0), Integer.parseInt(arg));
                flushed = q.flushPuts(10, TimeUnit.SECONDS);
                break;
            }
            default: {
                DistributedDelayQueue<String> q = (DistributedDelayQueue<String>) p;
                if (isMulti) q.putMulti(multi(items), Long.parseLong(arg)); else q.put(items.get(0), Long.parseLong(arg));
                flushed = q.flushPuts(10, TimeUnit.SECONDS);
            }
        }
        if (!flushed) throw new IllegalStateException("put not flushed in 10 s");
        return "ok";
    }

    static final Map<String, QueueSharder<String, DistributedQueue<String>>> sharders = new HashMap<>();
    static final Map<String, java.util.concurrent.CountDownLatch> gates = new java.util.concurrent.ConcurrentHashMap<>();

    static java.util.concurrent.CountDownLatch gate(String h) {
        return gates.computeIfAbsent(h, k -> new java.util.concurrent.CountDownLatch(1));
    }

    static String sharder(String h, String path, String leaderPath, String lockRoot, int threshold, int checkMs, int max) throws Exception {
        java.util.concurrent.CountDownLatch gate = gate(h);
        QueueAllocator<String, DistributedQueue<String>> alloc = (cl, p) -> {
            String name = ZKPaths.getNodeFromPath(p);
            QueueConsumer<String> c = new QueueConsumer<String>() {
                public void consumeMessage(String item) throws Exception {
                    gate.await();
                    say("item " + h + " " + item + "@" + name + " " + System.currentTimeMillis() + " ok");
                }
                public void stateChanged(CuratorFramework cl2, ConnectionState s) {}
            };
            return QueueBuilder.builder(cl, c, UTF8, p).lockPath(lockRoot + "/" + name).putInBackground(false).buildQueue();
        };
        QueueSharderPolicies pol = QueueSharderPolicies.builder().newQueueThreshold(threshold).thresholdCheckMs(checkMs).maxQueues(max).build();
        QueueSharder<String, DistributedQueue<String>> s = new QueueSharder<>(client, alloc, path, leaderPath, pol);
        s.start();
        sharders.put(h, s);
        return "ok";
    }

    static final Map<String, java.util.concurrent.CountDownLatch> releases = new java.util.concurrent.ConcurrentHashMap<>();

    static java.util.concurrent.CountDownLatch release(String item) {
        return releases.computeIfAbsent(item, k -> new java.util.concurrent.CountDownLatch(1));
    }

    static String consume(String h, String kind, String path, String lockPath, String fails, String holds) throws Exception {
        Set<String> failFirst = new HashSet<>(fails.equals("-") ? List.of() : Arrays.asList(fails.split(",")));
        Set<String> hold = new HashSet<>(holds.isEmpty() ? List.of() : Arrays.asList(holds.split(",")));
        QueueConsumer<String> c = new QueueConsumer<String>() {
            public void consumeMessage(String item) throws Exception {
                if (hold.contains(item)) {
                    say("holding " + h + " " + item);
                    release(item).await();
                }
                long at = System.currentTimeMillis();
                boolean fail = failFirst.remove(item);
                say("item " + h + " " + item + " " + at + (fail ? " fail" : " ok"));
                if (fail) throw new Exception("failing " + item + " once");
            }
            public void stateChanged(CuratorFramework cl, ConnectionState s) {}
        };
        QueueBuilder<String> b = QueueBuilder.builder(client, c, UTF8, path);
        if (!lockPath.equals("-")) b.lockPath(lockPath);
        AutoCloseable q;
        switch (kind) {
            case "queue": { DistributedQueue<String> x = b.buildQueue(); x.start(); q = x; break; }
            case "id": { DistributedIdQueue<String> x = b.buildIdQueue(); x.start(); q = x; break; }
            case "priority": { DistributedPriorityQueue<String> x = b.buildPriorityQueue(0); x.start(); q = x; break; }
            case "delay": { DistributedDelayQueue<String> x = b.buildDelayQueue(); x.start(); q = x; break; }
            default: throw new IllegalArgumentException(kind);
        }
        consumers.put(h, q);
        return "ok";
    }
}
