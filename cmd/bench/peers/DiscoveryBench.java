// DiscoveryBench is the discovery workload's Java peer (cmd/bench/discovery.go):
// curator-x-discovery 5.4's ServiceCache and ServiceProvider following one
// service while the harness registers and removes its instances. It is driven
// line by line on its standard input:
//
//   clock                        -> clock <System.nanoTime()>
//   caches <m> <basePath> <name> -> ready, once m ServiceCaches (a client each) have started
//   provider <basePath> <name>   -> ready, once a ServiceProvider has started; a thread
//                                   then polls getAllInstances() every 100 µs
//   close                        -> closed, once they are closed
//
// and writes "seen <i> <seq> <ns>" when follower i (a cache, or the provider as 0)
// first has the instance i-<seq>, and "gone <i> <seq> <ns>" when it no longer has
// it, stamped with System.nanoTime() (Linux's CLOCK_MONOTONIC, as the harness's):
// a cache as its cacheChanged() listener starts, the provider as its poll sees it.
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.LockSupport;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.x.discovery.ServiceCache;
import org.apache.curator.x.discovery.ServiceDiscovery;
import org.apache.curator.x.discovery.ServiceDiscoveryBuilder;
import org.apache.curator.x.discovery.ServiceInstance;
import org.apache.curator.x.discovery.ServiceProvider;
import org.apache.curator.x.discovery.details.ServiceCacheListener;

public class DiscoveryBench {
    static final Object out = new Object();

    static void say(String line) {
        synchronized (out) {
            System.out.println(line);
            System.out.flush();
        }
    }

    // Follower diffs the instances a follower has against what it had, and reports the changes.
    static class Follower {
        final int sub;
        Set<String> had = new HashSet<>();

        Follower(int sub) { this.sub = sub; }

        synchronized void now(Collection<? extends ServiceInstance<?>> instances, long at) {
            Set<String> ids = new HashSet<>();
            for (ServiceInstance<?> i : instances) ids.add(i.getId());
            for (String id : ids) if (!had.contains(id)) report("seen", id, at);
            for (String id : had) if (!ids.contains(id)) report("gone", id, at);
            had = ids;
        }

        void report(String what, String id, long at) {
            if (id.startsWith("i-")) say(what + " " + sub + " " + id.substring(2) + " " + at);
        }
    }

    static CuratorFramework client(String connect) throws Exception {
        CuratorFramework c = CuratorFrameworkFactory.newClient(connect, 10000, 10000, new ExponentialBackoffRetry(10, 10));
        c.start();
        c.blockUntilConnected();
        return c;
    }

    public static void main(String[] a) throws Exception {
        String connect = a[0];
        List<CuratorFramework> clients = new ArrayList<>();
        List<AutoCloseable> closers = new ArrayList<>();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line; (line = in.readLine()) != null; ) {
            String[] f = line.split(" ");
            switch (f[0]) {
                case "clock":
                    say("clock " + System.nanoTime());
                    break;
                case "caches": {
                    int m = Integer.parseInt(f[1]);
                    for (int i = 0; i < m; i++) {
                        CuratorFramework c = client(connect);
                        clients.add(c);
                        ServiceDiscovery<Object> d = ServiceDiscoveryBuilder.builder(Object.class).client(c).basePath(f[2]).build();
                        d.start();
                        ServiceCache<Object> cache = d.serviceCacheBuilder().name(f[3]).build();
                        Follower fo = new Follower(i);
                        cache.addListener(new ServiceCacheListener() {
                            public void cacheChanged() { fo.now(cache.getInstances(), System.nanoTime()); }
                            public void stateChanged(CuratorFramework client, ConnectionState s) {}
                        });
                        cache.start();
                        fo.now(cache.getInstances(), System.nanoTime());
                        closers.add(cache::close);
                        closers.add(d::close);
                    }
                    say("ready");
                    break;
                }
                case "provider": {
                    CuratorFramework c = client(connect);
                    clients.add(c);
                    ServiceDiscovery<Object> d = ServiceDiscoveryBuilder.builder(Object.class).client(c).basePath(f[1]).build();
                    d.start();
                    ServiceProvider<Object> p = d.serviceProviderBuilder().serviceName(f[2]).build();
                    p.start();
                    Follower fo = new Follower(0);
                    stop.set(false);
                    Thread poller = new Thread(() -> {
                        while (!stop.get()) {
                            try {
                                fo.now(p.getAllInstances(), System.nanoTime());
                            } catch (Exception e) {
                                e.printStackTrace();
                                return;
                            }
                            LockSupport.parkNanos(100_000);
                        }
                    });
                    poller.start();
                    closers.add(() -> { stop.set(true); poller.join(); });
                    closers.add(p::close);
                    closers.add(d::close);
                    say("ready");
                    break;
                }
                case "close": {
                    for (AutoCloseable cl : closers) cl.close();
                    closers.clear();
                    List<Thread> closing = new ArrayList<>();
                    for (CuratorFramework c : clients) { // in parallel: each close stalls the JVM's clients ~100 ms
                        Thread t = new Thread(c::close);
                        t.start();
                        closing.add(t);
                    }
                    for (Thread t : closing) t.join();
                    clients.clear();
                    say("closed");
                    break;
                }
                default:
                    throw new IllegalArgumentException(line);
            }
        }
    }

    static final AtomicBoolean stop = new AtomicBoolean();
}
