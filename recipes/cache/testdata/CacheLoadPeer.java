// Licensed under the Apache License, Version 2.0.
//
// CacheLoadPeer loads a tree into Curator's CuratorCache, for BenchmarkLoad's
// curator row: java CacheLoadPeer <connect> <path>. It prints
//
//	LOADED <nodes cached> <load ns> <heap bytes held by the cache>
//
// once the cache reports itself initialized. The load is timed from the
// cache's start to its initialized event; the heap is what the JVM holds
// after the load, after a full collection, less what it held before the
// cache was built (the client connected), in the manner of the Go row.

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.retry.RetryOneTime;

public class CacheLoadPeer {
    public static void main(String[] args) throws Exception {
        CuratorFramework client = CuratorFrameworkFactory.newClient(args[0], 30000, 15000, new RetryOneTime(100));
        client.start();
        if (!client.blockUntilConnected(30, TimeUnit.SECONDS)) {
            throw new IllegalStateException("not connected");
        }
        long before = heapAfterGC();
        CuratorCache cache = CuratorCache.build(client, args[1]);
        CountDownLatch initialized = new CountDownLatch(1);
        cache.listenable().addListener(CuratorCacheListener.builder().forInitialized(initialized::countDown).build());
        long start = System.nanoTime();
        cache.start();
        if (!initialized.await(10, TimeUnit.MINUTES)) {
            throw new IllegalStateException("not initialized");
        }
        long took = System.nanoTime() - start;
        long held = heapAfterGC() - before;
        System.out.println("LOADED " + cache.size() + " " + took + " " + held);
        System.out.flush();
        cache.close();
        client.close();
    }

    static long heapAfterGC() throws InterruptedException {
        Runtime rt = Runtime.getRuntime();
        for (int i = 0; i < 3; i++) {
            System.gc();
            Thread.sleep(100);
        }
        return rt.totalMemory() - rt.freeMemory();
    }
}
