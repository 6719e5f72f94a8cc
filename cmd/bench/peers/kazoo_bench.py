"""Runs the harness's workloads with Kazoo and prints one JSON line each.

Usage: kazoo_bench.py <connect> <workload> <durationMs> [herdWaiters | failovers]
(workload: mutex-uncontended, mutex-contended, semaphore, rwlock, herd, failover or counter)
   or: kazoo_bench.py <connect> propagation-subscribers datawatch|treecache

Kazoo's locks follow their own protocol (close to Curator's for the mutex;
its semaphore is different). Its read-write lock can deadlock (kazoo#649):
acquires here time out after 10 s and such a run is reported, not hidden.
"""
import json
import logging
import os
import queue
import socket
import struct
import sys
import threading
import time
import traceback

from kazoo.client import KazooClient
from kazoo.recipe.cache import TreeCache, TreeEvent
from kazoo.recipe.watchers import DataWatch
from kazoo.exceptions import BadVersionError, LockTimeout, NodeExistsError
from kazoo.recipe.election import Election
from kazoo.recipe.lock import Lock, ReadLock, Semaphore, WriteLock

logging.basicConfig(level=logging.CRITICAL)


def received(connect):
    """The requests every member of connect has received (srvr's Received,
    summed: each member counts its own clients' requests)."""
    total = 0
    for member in connect.split(","):
        host, port = member.split(":")
        with socket.create_connection((host, int(port))) as s:
            s.sendall(b"srvr")
            out = b""
            while True:
                chunk = s.recv(4096)
                if not chunk:
                    break
                out += chunk
        for line in out.decode().splitlines():
            if line.startswith("Received: "):
                total += int(line.split(":")[1])
    return total


def client(connect):
    c = KazooClient(hosts=connect, timeout=10)
    c.start(timeout=30)
    return c


def pct(sorted_ns, p):
    if not sorted_ns:
        return 0
    return sorted_ns[int((len(sorted_ns) - 1) * p / 100)] / 1000.0


def contention(connect, workload, n, duration, kind, leases):
    clients = [client(connect) for _ in range(n)]
    path = "/bench/kazoo/" + workload
    state = {"cycles": 0, "violations": 0, "inside": 0, "writers": 0, "release": 0, "timeouts": 0}
    mu = threading.Lock()
    handoffs = []
    srv0 = received(connect)
    start = time.monotonic()
    stop = start + duration

    def work(i, c):
        mutex = Lock(c, path)
        sem = Semaphore(c, path, max_leases=leases)
        rlock, wlock = ReadLock(c, path), WriteLock(c, path)
        cycle = 0
        while time.monotonic() < stop:
            write = kind == "rwlock" and (i + cycle) % 5 == 0
            lock = sem if kind == "semaphore" else (wlock if write else rlock) if kind == "rwlock" else mutex
            try:
                acquired = lock.acquire(timeout=10)
            except LockTimeout:
                acquired = False
            if not acquired:
                with mu:
                    state["timeouts"] += 1
                return
            now = time.monotonic_ns()
            with mu:
                if state["release"] and n > 1:
                    handoffs.append(now - state["release"])
                state["release"] = 0
                state["inside"] += 1
                if write:
                    state["writers"] += 1
                inside, writers = state["inside"], state["writers"]
                ok = inside <= leases if kind == "semaphore" else (writers == 0 or (writers == 1 and inside == 1)) if kind == "rwlock" else inside <= 1
                if not ok:
                    state["violations"] += 1
            with mu:
                if write:
                    state["writers"] -= 1
                state["inside"] -= 1
                state["release"] = time.monotonic_ns()
            lock.release()
            with mu:
                state["cycles"] += 1
            cycle += 1

    threads = [threading.Thread(target=work, args=(i, c)) for i, c in enumerate(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    secs = time.monotonic() - start
    srv = received(connect) - srv0
    handoffs.sort()
    cycles = state["cycles"]
    r = {"impl": "kazoo", "workload": workload, "clients": n, "cycles": cycles, "seconds": secs,
         "cycles_per_sec": cycles / secs, "handoff_p50_us": pct(handoffs, 50), "handoff_p99_us": pct(handoffs, 99),
         "client_requests_per_cycle": 0, "server_requests_per_cycle": srv / max(1, cycles),
         "violations": state["violations"], "notes": "client-side requests not counted for Python"}
    if state["timeouts"]:
        r["notes"] += "; %d acquires timed out after 10 s (kazoo#649 read-write deadlock?)" % state["timeouts"]
    print(json.dumps(r))
    for c in clients:
        c.stop()
        c.close()


def counter(connect, workload, n, duration):
    """n clients add one to a shared count (4 big-endian bytes, as Curator's
    SharedCount and Kazoo's Counter with support_curator=True keep it) for
    the duration: get the count and its version, set it one higher at that
    version, and again from the get on BadVersionError (a conflict). This is
    Kazoo's Counter's own request pattern; the Counter itself is not used,
    because it retries a conflict through the client's retry policy, which
    by default sleeps 0.1 s (doubling, with jitter) before each try again."""
    clients = [client(connect) for _ in range(n)]
    path = "/bench/kazoo/" + workload
    try:
        clients[0].create(path, struct.pack(">i", 0), makepath=True)
    except NodeExistsError:
        pass

    def read():
        return struct.unpack(">i", clients[0].get(path)[0])[0]

    state = {"cycles": 0, "conflicts": 0, "failures": 0}
    mu = threading.Lock()
    before = read()
    srv0 = received(connect)
    start = time.monotonic()
    stop = start + duration

    def work(c):
        cycles = conflicts = 0
        try:
            while time.monotonic() < stop:
                while True:
                    data, stat = c.get(path)
                    try:
                        c.set(path, struct.pack(">i", struct.unpack(">i", data)[0] + 1), version=stat.version)
                        break
                    except BadVersionError:
                        conflicts += 1
                cycles += 1
        except Exception:
            traceback.print_exc()
            with mu:
                state["failures"] += 1
        with mu:
            state["cycles"] += cycles
            state["conflicts"] += conflicts

    threads = [threading.Thread(target=work, args=(c,)) for c in clients]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    secs = time.monotonic() - start
    srv = received(connect) - srv0
    after = read()
    cycles = state["cycles"]
    violations = abs(before + cycles - after)
    r = {"impl": "kazoo", "workload": workload, "clients": n, "cycles": cycles, "seconds": secs,
         "cycles_per_sec": cycles / secs, "client_requests_per_cycle": 0,
         "server_requests_per_cycle": srv / max(1, cycles), "conflicts_per_cycle": state["conflicts"] / max(1, cycles),
         "violations": violations, "notes": "get + set at its version (Counter's requests, without its backoff); client-side requests not counted for Python"}
    if violations:
        r["notes"] += "; the count went from %d to %d in %d increments" % (before, after, cycles)
    if state["failures"]:
        r["notes"] += "; %d of %d clients failed (tracebacks on stderr)" % (state["failures"], n)
    print(json.dumps(r))
    for c in clients:
        c.stop()
        c.close()
    if state["failures"]:
        sys.exit(1)


def herd(connect, waiters):
    clients = [client(connect) for _ in range(waiters + 1)]
    path = "/bench/kazoo/herd-%d" % waiters
    holder = Lock(clients[0], path)
    holder.acquire()
    srv0 = received(connect)
    done = threading.Semaphore(0)

    def wait(c):
        l = Lock(c, path)
        l.acquire()
        l.release()
        done.release()

    for c in clients[1:]:
        threading.Thread(target=wait, args=(c,), daemon=True).start()
    while len(holder.contenders()) < waiters + 1:
        time.sleep(0.02)
    start = time.monotonic()
    holder.release()
    for _ in range(waiters):
        done.acquire()
    secs = time.monotonic() - start
    srv = received(connect) - srv0
    print(json.dumps({"impl": "kazoo", "workload": "herd-%d" % waiters, "clients": waiters + 1, "waiters": waiters,
                      "cycles": waiters, "seconds": secs, "cycles_per_sec": waiters / secs, "drain_seconds": secs,
                      "client_requests_per_cycle": 0, "server_requests_per_cycle": srv / waiters, "violations": 0,
                      "notes": "notifications not counted for Python; contenders() polling adds requests"}))
    for c in clients:
        c.stop()
        c.close()


FAILOVER_QUEUE = 3
FAILOVER_SETTLE = 0.020  # quiet time after a change (before counting) and after a join


def failover(connect, count):
    """A standing queue of Elections, each with its own client; each change
    stops the leader's client and times, from the start of the stop, until
    the next participant's leadership function starts. Then a new participant
    joins at the back. As the Go harness's failover workload."""
    path = "/bench/kazoo/failover"
    observer = client(connect)
    observer.ensure_path(path)
    led = queue.Queue()
    leading = set()  # led, session open
    mu = threading.Lock()
    state = {"violations": 0, "next": 0}

    class Participant(object):
        def __init__(self):
            self.id = state["next"]
            state["next"] += 1
            self.client = client(connect)
            self.resign = threading.Event()
            self.election = Election(self.client, path, "p%d" % self.id)
            self.thread = threading.Thread(target=self.run, daemon=True)
            self.thread.start()

        def lead(self):
            at = time.monotonic_ns()
            with mu:
                if leading:
                    state["violations"] += 1
                leading.add(self.id)
            led.put((self.id, at))
            self.resign.wait()

        def run(self):
            try:
                self.election.run(self.lead)
            except Exception:
                pass  # its client was stopped

        def close(self):
            with mu:
                leading.discard(self.id)
            t0 = time.monotonic_ns()
            self.client.stop()
            return t0, time.monotonic_ns() - t0

        def stop(self):
            self.resign.set()
            self.election.cancel()
            self.thread.join(10)
            self.client.close()

    def await_leader(pid):
        try:
            got, at = led.get(timeout=30)
        except queue.Empty:
            raise RuntimeError("participant %d did not lead within 30 s" % pid)
        if got != pid:
            raise RuntimeError("participant %d leads, want %d" % (got, pid))
        return at

    def join(q):
        q.append(Participant())
        deadline = time.monotonic() + 30
        while len(observer.get_children(path)) != len(q):
            if time.monotonic() > deadline:
                raise RuntimeError("a participant did not join")
            time.sleep(0.001)
        time.sleep(FAILOVER_SETTLE)

    q = []
    failovers, closes, srv = [], [], 0
    start = time.monotonic()
    while len(q) < FAILOVER_QUEUE:
        join(q)
    await_leader(q[0].id)
    for _ in range(count):
        old, nxt = q[0], q[1]
        srv0 = received(connect)
        t0, dur = old.close()
        closes.append(dur)
        failovers.append(await_leader(nxt.id) - t0)
        time.sleep(FAILOVER_SETTLE)
        srv += received(connect) - srv0 - len(connect.split(","))  # the second srvr query counts itself at each member
        old.stop()
        q.pop(0)
        while len(q) < FAILOVER_QUEUE:
            join(q)
    for p in reversed(q):  # from the back: nobody takes over
        p.close()
        p.stop()
    secs = time.monotonic() - start
    failovers.sort()
    closes.sort()
    n = len(failovers)
    print(json.dumps({"impl": "kazoo", "workload": "failover", "clients": FAILOVER_QUEUE, "cycles": n, "seconds": secs,
                      "cycles_per_sec": n / secs, "failover_p50_us": pct(failovers, 50), "failover_p99_us": pct(failovers, 99),
                      "close_p50_us": pct(closes, 50), "client_requests_per_cycle": 0,
                      "server_requests_per_cycle": srv / max(1, n), "violations": state["violations"],
                      "notes": "Election; client-side requests not counted for Python"}))
    observer.stop()
    observer.close()


def propagation_subscribers(connect, kind):
    """The propagation workload's subscribers (cmd/bench/peersubs.go),
    driven line by line on stdin: "clock" is answered "clock <ns>"; "open
    <m> <base> <cfg>" opens m clients, each with a DataWatch of cfg or a
    TreeCache of base, and is answered "ready" once each has its first copy;
    "close" closes them and is answered "closed". Whenever a subscriber's
    function or listener sees cfg's value, it writes "seen <subscriber>
    <value> <ns>", stamped with time.monotonic_ns as it starts. The harness
    publishes; the subscribers share this process (and its GIL)."""
    out = threading.Lock()

    def say(line):
        with out:
            sys.stdout.write(line + "\n")
            sys.stdout.flush()

    subs = []  # (client, tree cache or None)
    for line in sys.stdin:
        f = line.split()
        if f[0] == "clock":
            say("clock %d" % time.monotonic_ns())
        elif f[0] == "open":
            m, base, cfg = int(f[1]), f[2], f[3]
            for i in range(m):
                c = client(connect)
                if kind == "datawatch":
                    def changed(data, stat, event=None, i=i):
                        at = time.monotonic_ns()
                        if data is not None:
                            say("seen %d %s %d" % (i, data.decode() or "-", at))
                    DataWatch(c, cfg, changed)  # calls changed before it returns
                    subs.append((c, None))
                    continue
                ready = threading.Event()

                def listener(ev, i=i, ready=ready):
                    at = time.monotonic_ns()
                    if ev.event_type == TreeEvent.INITIALIZED:
                        ready.set()
                    elif ev.event_type in (TreeEvent.NODE_ADDED, TreeEvent.NODE_UPDATED) and ev.event_data.path == cfg:
                        say("seen %d %s %d" % (i, ev.event_data.data.decode() or "-", at))
                tree = TreeCache(c, base)
                tree.listen(listener)
                tree.start()
                subs.append((c, tree))
                if not ready.wait(60):
                    raise RuntimeError("tree cache not initialized within 60 s")
            say("ready")
        elif f[0] == "close":
            for c, tree in subs:
                if tree is not None:
                    tree.close()
                c.stop()
                c.close()
            subs = []
            say("closed")
        else:
            raise SystemExit("unknown command " + line)


def many_locks(connect, workload, n_clients, n_threads, duration):
    """The Go harness's many-locks workload (cmd/bench/internal/harness/manylocks.go): n_threads
    threads over n_clients clients (thread i on client i mod n_clients), each
    looping acquire and release of a Lock of its own, never contended."""
    clients = [client(connect) for _ in range(n_clients)]
    path = "/bench/kazoo/" + workload
    locks = [Lock(clients[i % n_clients], "%s/%d" % (path, i)) for i in range(n_threads)]
    state = {"cycles": 0, "violations": 0, "failures": 0}
    mu = threading.Lock()
    srv0 = received(connect)
    start = time.monotonic()
    stop = start + duration

    def work(lock):
        inside = 0
        n = 0
        try:
            while time.monotonic() < stop:
                lock.acquire()
                inside += 1
                if inside != 1:
                    with mu:
                        state["violations"] += 1
                inside -= 1
                lock.release()
                n += 1
        except Exception:
            traceback.print_exc()
            with mu:
                state["failures"] += 1
        with mu:
            state["cycles"] += n

    threads = [threading.Thread(target=work, args=(lock,)) for lock in locks]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    secs = time.monotonic() - start
    srv = received(connect) - srv0
    cycles = state["cycles"]
    notes = "client-side requests not counted for Python"
    if state["failures"]:
        notes += "; %d of %d threads failed (tracebacks on stderr)" % (state["failures"], n_threads)
    print(json.dumps({"impl": "kazoo", "workload": workload, "clients": n_clients, "waiters": n_threads, "cycles": cycles,
                      "seconds": secs, "cycles_per_sec": cycles / secs, "client_requests_per_cycle": 0,
                      "server_requests_per_cycle": srv / max(1, cycles), "violations": state["violations"], "notes": notes}))
    sys.stdout.flush()
    for c in clients:
        c.stop()
        c.close()
    if state["failures"]:
        sys.exit(1)


def main():
    if sys.argv[2] == "propagation-subscribers":
        propagation_subscribers(sys.argv[1], sys.argv[3])
        return
    connect, workload, duration = sys.argv[1], sys.argv[2], int(sys.argv[3]) / 1000.0

    if workload == "mutex-uncontended":
        contention(connect, workload, 1, duration, "mutex", 1)
    elif workload == "mutex-contended":
        contention(connect, workload, 8, duration, "mutex", 1)
    elif workload == "semaphore":
        contention(connect, workload, 8, duration, "semaphore", 3)
    elif workload == "rwlock":
        contention(connect, workload, 8, duration, "rwlock", 1)
    elif workload == "herd":
        herd(connect, int(sys.argv[4]))
    elif workload == "failover":
        failover(connect, int(sys.argv[4]))
    elif workload == "counter":
        counter(connect, workload, 8, duration)
    elif workload.startswith("many-locks-"):
        many_locks(connect, workload, int(workload[len("many-locks-"):]), int(sys.argv[4]), duration)
    else:
        raise SystemExit("unknown workload " + workload)


if __name__ == "__main__":
    try:
        main()
    except BaseException:
        # Kazoo's connection threads keep the process alive after the main
        # thread fails (a client that did not connect in time, say): exit
        # now, so that the harness reports the error instead of waiting.
        traceback.print_exc()
        sys.stderr.flush()
        os._exit(1)
