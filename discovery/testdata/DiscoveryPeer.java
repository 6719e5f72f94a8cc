// DiscoveryPeer is a process using curator-x-discovery 5.4's own
// ServiceDiscovery, for the interop tests (interop_test.go):
//
//   java DiscoveryPeer <connect> <namespace> <basePath> <map|bean>
//
// Its payload class is Map (map) or DiscoveryPeer$Details (bean: region,
// weight). It connects, starts the discovery, prints "READY" and obeys one
// command per line on stdin, answering one line each (a failure answers
// "ERR <command> <exception>"):
//
//   REGISTER <name> <id> <port> <a> <b>  registers a DYNAMIC instance at
//                                        address 10.0.0.9 with a URI spec, payload
//                                        {region: a, weight: b} (a Map or a Details);
//                                        answers "REGISTERED <its JSON>"
//   UNREGISTER <name> <id>               answers "UNREGISTERED"
//   NAMES                                answers "NAMES <sorted names>"
//   QUERY <name>                         answers "INSTANCES <id|address|port|sslPort|payload|enabled|uri> ..."
//                                        sorted by id, the payload as "region/weight"
//   ROUNDTRIP <path>                     reads the node, deserializes and
//                                        serializes it again; answers "JSON <json>"
//   CACHE <name>                         starts a ServiceCache; answers "CACHED <ids>",
//                                        then prints "CHANGED <sorted ids>" at each cacheChanged
//   PROVIDER <name>                      starts a ServiceProvider (round robin); answers "PROVIDED"
//   PICK                                 answers "PICKED <id>", or "PICKED -"
//   CLOSE                                closes everything; answers "CLOSED" and exits
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.apache.curator.x.discovery.ServiceCache;
import org.apache.curator.x.discovery.ServiceDiscovery;
import org.apache.curator.x.discovery.ServiceDiscoveryBuilder;
import org.apache.curator.x.discovery.ServiceInstance;
import org.apache.curator.x.discovery.ServiceProvider;
import org.apache.curator.x.discovery.UriSpec;
import org.apache.curator.x.discovery.details.JsonInstanceSerializer;
import org.apache.curator.x.discovery.details.ServiceCacheListener;

public class DiscoveryPeer {
    public static class Details {
        private String region;
        private int weight;

        public Details() {}

        public Details(String region, int weight) {
            this.region = region;
            this.weight = weight;
        }

        public String getRegion() { return region; }
        public void setRegion(String region) { this.region = region; }
        public int getWeight() { return weight; }
        public void setWeight(int weight) { this.weight = weight; }
    }

    static synchronized void out(String line) {
        System.out.println(line);
        System.out.flush();
    }

    @SuppressWarnings({"unchecked", "rawtypes"})
    public static void main(String[] args) throws Exception {
        boolean bean = args[3].equals("bean");
        Class payloadClass = bean ? Details.class : Map.class;
        CuratorFramework client = CuratorFrameworkFactory.builder()
                .connectString(args[0])
                .namespace(args[1])
                .sessionTimeoutMs(4000)
                .retryPolicy(new ExponentialBackoffRetry(50, 10))
                .build();
        client.start();
        client.blockUntilConnected();
        JsonInstanceSerializer serializer = new JsonInstanceSerializer(payloadClass);
        ServiceDiscovery discovery = ServiceDiscoveryBuilder.builder(payloadClass)
                .client(client).basePath(args[2]).serializer(serializer).build();
        discovery.start();
        List<AutoCloseableWrapper> closeables = new ArrayList<>();
        ServiceProvider provider = null;
        out("READY");
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        String line;
        while ((line = in.readLine()) != null) {
            String[] f = line.split(" ");
            try {
                switch (f[0]) {
                    case "REGISTER": {
                        Object payload;
                        if (bean) {
                            payload = new Details(f[4], Integer.parseInt(f[5]));
                        } else {
                            Map<String, Object> m = new LinkedHashMap<>();
                            m.put("region", f[4]);
                            m.put("weight", Integer.parseInt(f[5]));
                            payload = m;
                        }
                        ServiceInstance inst = ServiceInstance.builder().name(f[1]).id(f[2]).address("10.0.0.9")
                                .port(Integer.parseInt(f[3])).uriSpec(new UriSpec("{scheme}://{address}:{port}/v1"))
                                .payload(payload).build();
                        discovery.registerService(inst);
                        out("REGISTERED " + new String(serializer.serialize(inst), StandardCharsets.UTF_8));
                        break;
                    }
                    case "UNREGISTER": {
                        ServiceInstance inst = ServiceInstance.builder().name(f[1]).id(f[2]).build();
                        discovery.unregisterService(inst);
                        out("UNREGISTERED");
                        break;
                    }
                    case "NAMES":
                        out("NAMES " + String.join(" ", new TreeSet<String>(discovery.queryForNames())));
                        break;
                    case "QUERY": {
                        TreeSet<String> insts = new TreeSet<>();
                        for (Object o : discovery.queryForInstances(f[1])) {
                            insts.add(describe((ServiceInstance) o, bean));
                        }
                        out("INSTANCES " + String.join(" ", insts));
                        break;
                    }
                    case "ROUNDTRIP": {
                        byte[] data = client.getData().forPath(f[1]);
                        ServiceInstance inst = serializer.deserialize(data);
                        out("JSON " + new String(serializer.serialize(inst), StandardCharsets.UTF_8));
                        break;
                    }
                    case "CACHE": {
                        ServiceCache cache = discovery.serviceCacheBuilder().name(f[1]).build();
                        cache.addListener(new ServiceCacheListener() {
                            public void cacheChanged() { out("CHANGED " + ids(cache.getInstances())); }
                            public void stateChanged(CuratorFramework c, ConnectionState s) {}
                        });
                        cache.start();
                        closeables.add(new AutoCloseableWrapper(cache));
                        out("CACHED " + ids(cache.getInstances()));
                        break;
                    }
                    case "PROVIDER":
                        provider = discovery.serviceProviderBuilder().serviceName(f[1]).build();
                        provider.start();
                        closeables.add(new AutoCloseableWrapper(provider));
                        out("PROVIDED");
                        break;
                    case "PICK": {
                        ServiceInstance inst = provider.getInstance();
                        out("PICKED " + (inst == null ? "-" : inst.getId()));
                        break;
                    }
                    case "CLOSE":
                        for (AutoCloseableWrapper c : closeables) {
                            c.close();
                        }
                        discovery.close();
                        client.close();
                        out("CLOSED");
                        return;
                    default:
                        out("ERR " + f[0] + " unknown command");
                }
            } catch (Exception e) {
                out("ERR " + f[0] + " " + e);
            }
        }
    }

    static String ids(Collection<?> instances) {
        TreeSet<String> ids = new TreeSet<>();
        for (Object o : instances) {
            ids.add(((ServiceInstance<?>) o).getId());
        }
        return String.join(" ", ids);
    }

    static String describe(ServiceInstance<?> i, boolean bean) {
        String payload;
        Object p = i.getPayload();
        if (p == null) {
            payload = "null";
        } else if (bean) {
            Details d = (Details) p;
            payload = d.getRegion() + "/" + d.getWeight();
        } else {
            Map<?, ?> m = (Map<?, ?>) p;
            payload = m.get("region") + "/" + m.get("weight");
        }
        return i.getId() + "|" + i.getAddress() + "|" + i.getPort() + "|" + i.getSslPort() + "|" + payload + "|" + i.isEnabled() + "|" + i.buildUriSpec();
    }

    static class AutoCloseableWrapper {
        private final java.io.Closeable c;

        AutoCloseableWrapper(java.io.Closeable c) { this.c = c; }

        void close() throws Exception { c.close(); }
    }
}
