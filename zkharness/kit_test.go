package zkharness_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/go-zookeeper/zk"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/recipestest"
	"github.com/gocurator/curator/zkharness"
)

var server *zkharness.Server

func TestMain(m *testing.M) { recipestest.RunWithServer(m, &server) }

// connect opens a bare go-zookeeper session and returns it with its event
// channel; the kit is tested without our own client in between.
func connect(t *testing.T, addr string, dialer framework.Dialer) (*zk.Conn, <-chan zk.Event) {
	t.Helper()
	if dialer == nil {
		dialer = net.DialTimeout
	}
	conn, events, err := zk.Connect(strings.Split(addr, ","), 4*time.Second, zk.WithDialer(zk.Dialer(dialer)), zk.WithLogInfo(false), zk.WithLogger(quiet{}))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(conn.Close)
	waitEvent(t, events, zk.StateHasSession)
	return conn, events
}

type quiet struct{}

func (quiet) Printf(string, ...any) {}

// waitEvent waits for a session event with state s.
func waitEvent(t *testing.T, events <-chan zk.Event, s zk.State) {
	t.Helper()
	deadline := time.After(60 * time.Second)
	for {
		select {
		case ev := <-events:
			if ev.Type == zk.EventSession && ev.State == s {
				return
			}
		case <-deadline:
			t.Fatalf("no %v event", s)
		}
	}
}

func TestServerRestartKeepsSessions(t *testing.T) {
	srv := recipestest.StartServer(t)
	conn, events := connect(t, srv.ConnectString(), nil)
	if _, err := conn.Create("/eph", nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	id := conn.SessionID()
	srv.Stop()
	waitEvent(t, events, zk.StateDisconnected)
	if err := srv.Restart(); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, events, zk.StateHasSession)
	if conn.SessionID() != id {
		t.Fatalf("session %x became %x", id, conn.SessionID())
	}
	if ok, _, err := conn.Exists("/eph"); !ok || err != nil {
		t.Fatalf("ephemeral after restart: %v %v", ok, err)
	}
	if n, err := srv.Received(context.Background()); err != nil || n <= 0 {
		t.Fatalf("Received = %d, %v", n, err)
	}
}

func TestSessionKillerExpiresTheSession(t *testing.T) {
	killer := zkharness.NewSessionKiller()
	conn, events := connect(t, server.Addr(), killer.Dialer(nil))
	path, err := conn.Create("/"+recipestest.Namespace(t), nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll))
	if err != nil {
		t.Fatal(err)
	}
	old := conn.SessionID()
	if killer.SessionID() != old {
		t.Fatalf("killer saw session %x, client has %x", killer.SessionID(), old)
	}
	if err := killer.Kill(context.Background()); err != nil {
		t.Fatal(err)
	}
	waitEvent(t, events, zk.StateExpired)
	waitEvent(t, events, zk.StateHasSession)
	if conn.SessionID() == old {
		t.Fatal("same session after the kill")
	}
	if ok, _, _ := conn.Exists(path); ok {
		t.Fatal("the killed session's ephemeral node survived")
	}
}

func TestProxyDropAllAndBlackhole(t *testing.T) {
	proxy, err := zkharness.NewProxy(server.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	conn, events := connect(t, proxy.Addr(), nil)
	id := conn.SessionID()
	proxy.DropAll()
	waitEvent(t, events, zk.StateDisconnected)
	waitEvent(t, events, zk.StateHasSession)
	if conn.SessionID() != id {
		t.Fatal("DropAll cost the session")
	}
	// Silenced past its timeout, the session expires on the server.
	proxy.Blackhole(true)
	waitEvent(t, events, zk.StateDisconnected)
	recipestest.Eventually(t, "the silenced session to expire", func() (bool, string) {
		out, _ := server.Command(context.Background(), "cons")
		return !strings.Contains(out, fmt.Sprintf("sid=0x%x", id)), out
	})
	proxy.Blackhole(false)
	waitEvent(t, events, zk.StateExpired)
}

// DropAfter: the create commits, its reply is lost with the connection.
func TestProxyDropAfterLosesTheReply(t *testing.T) {
	proxy, err := zkharness.NewProxy(server.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer proxy.Close()
	conn, _ := connect(t, proxy.Addr(), nil)
	path := "/" + recipestest.Namespace(t)
	proxy.DropAfter(zkharness.OpCreate)
	if _, err := conn.Create(path, nil, 0, zk.WorldACL(zk.PermAll)); !errors.Is(err, zk.ErrConnectionClosed) {
		t.Fatalf("create through DropAfter: %v, want a lost connection", err)
	}
	probe, _ := connect(t, server.Addr(), nil)
	if ok, _, err := probe.Exists(path); !ok || err != nil {
		t.Fatalf("the create did not commit: %v %v", ok, err)
	}
	probe.Delete(path, -1)
}

// Arrival: a request sent while the proxy is silent is seen to arrive, yet
// reaches the server only once the proxy speaks again; a request sent after
// it (an exists here) arrives too, read past the first.
func TestProxyArrivalWhileSilent(t *testing.T) {
	proxy := recipestest.StartProxy(t, server.Addr())
	conn, _ := connect(t, proxy.Addr(), nil)
	probe, _ := connect(t, server.Addr(), nil)
	path := "/" + recipestest.Namespace(t)
	created, checked := proxy.Arrival(zkharness.OpCreate), make(chan error, 1)
	proxy.Blackhole(true)
	done := make(chan error, 1)
	go func() {
		_, err := conn.Create(path, nil, 0, zk.WorldACL(zk.PermAll))
		done <- err
	}()
	ctx := recipestest.Context(t)
	arrive := func(ch <-chan struct{}, what string) {
		t.Helper()
		select {
		case <-ch:
		case <-ctx.Done():
			t.Fatalf("the %s never arrived at the silent proxy", what)
		}
	}
	arrive(created, "create")
	exists := proxy.Arrival(zkharness.OpExists)
	go func() {
		_, _, err := conn.Exists(path)
		checked <- err
	}()
	arrive(exists, "exists")
	if ok, _, err := probe.Exists(path); ok || err != nil {
		t.Fatalf("the create reached the server through a silent proxy: %v %v", ok, err)
	}
	proxy.Blackhole(false)
	if err := <-done; err != nil {
		t.Fatalf("create once the proxy spoke again: %v", err)
	}
	if err := <-checked; err != nil {
		t.Fatalf("exists once the proxy spoke again: %v", err)
	}
	if ok, _, err := probe.Exists(path); !ok || err != nil {
		t.Fatalf("the create did not commit: %v %v", ok, err)
	}
	probe.Delete(path, -1)
}

func TestEnsembleSurvivesAFollowerAndRestartsIt(t *testing.T) {
	ens, err := zkharness.StartEnsemble(3)
	if err != nil {
		t.Fatal(err)
	}
	defer ens.Close()
	ctx := context.Background()
	leader, err := ens.Leader(ctx)
	if err != nil {
		t.Fatal(err)
	}
	follower := (leader + 1) % 3
	if err := ens.Kill(follower); err != nil {
		t.Fatal(err)
	}
	conn, _ := connect(t, ens.ConnectString(), nil)
	for i := range 5 {
		if _, err := conn.Create(fmt.Sprintf("/n%d", i), nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatalf("write with a member down: %v", err)
		}
	}
	if err := ens.Restart(follower); err != nil {
		t.Fatal(err)
	}
	for _, i := range []int{-1, 3} { // no such member: an error, not a panic
		if err := ens.Kill(i); err == nil {
			t.Errorf("Kill(%d) on 3 members: no error", i)
		}
		if err := ens.Stop(i); err == nil {
			t.Errorf("Stop(%d) on 3 members: no error", i)
		}
		if err := ens.Restart(i); err == nil {
			t.Errorf("Restart(%d) on 3 members: no error", i)
		}
		if _, err := ens.Command(ctx, i, "srvr"); err == nil {
			t.Errorf("Command(%d) on 3 members: no error", i)
		}
		if addr := ens.Member(i); addr != "" {
			t.Errorf("Member(%d) on 3 members: %q, want \"\"", i, addr)
		}
	}
	// Every member, the restarted one included, has the same tree.
	want := ""
	for i := range 3 {
		c, _ := connect(t, ens.Member(i), nil)
		c.Sync("/")
		kids, _, err := c.Children("/")
		if err != nil {
			t.Fatal(err)
		}
		got := fmt.Sprint(sorted(kids))
		if i == 0 {
			want = got
		} else if got != want {
			t.Fatalf("member %d sees %s, member 0 %s", i, got, want)
		}
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	for i := range out {
		for j := i + 1; j < len(out); j++ {
			if out[j] < out[i] {
				out[i], out[j] = out[j], out[i]
			}
		}
	}
	return out
}

func TestMissingZooKeeperSaysHowToInstall(t *testing.T) {
	t.Setenv("ZOOKEEPER_HOME", t.TempDir())
	_, err := zkharness.NewServer()
	if !errors.Is(err, zkharness.ErrNoZooKeeper) || !strings.Contains(err.Error(), "apt-get install -y zookeeper") {
		t.Fatalf("NewServer without ZooKeeper: %v", err)
	}
}

func TestNamespaceIsFreshAndValid(t *testing.T) {
	a, b := recipestest.Namespace(t), recipestest.Namespace(t)
	if a == b {
		t.Fatal("two namespaces alike")
	}
	if _, err := framework.New("127.0.0.1:1", framework.WithNamespace(a)); err != nil {
		t.Fatalf("namespace %q rejected: %v", a, err)
	}
}

// TestNodeCountAndReceived runs on a server of its own, with no session open
// while it counts, so that no ping lands between the readings.
func TestNodeCountAndReceived(t *testing.T) {
	ctx := context.Background()
	srv := recipestest.StartServer(t, zkharness.WithoutFsync())
	before, err := zkharness.NodeCount(ctx, srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	conn, _ := connect(t, srv.Addr(), nil)
	if _, err := conn.Create("/n", []byte("x"), 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	if data, _, err := conn.Get("/n"); err != nil || string(data) != "x" {
		t.Fatalf("Get = %q, %v", data, err)
	}
	conn.Close()
	r1, _ := zkharness.Received(ctx, srv.Addr())
	r2, _ := zkharness.Received(ctx, srv.Addr())
	after, err := zkharness.NodeCount(ctx, srv.Addr())
	if err != nil {
		t.Fatal(err)
	}
	r3, _ := zkharness.Received(ctx, srv.Addr())
	if after != before+1 {
		t.Fatalf("node count %d after one create, %d before", after, before)
	}
	// Each four-letter command is one packet in Received, nothing more.
	if r2-r1 != 1 || r3-r2 != 2 {
		t.Fatalf("Received went %d, %d, %d around one NodeCount", r1, r2, r3)
	}
}

// The counter sees each request once, a watch notification once, and every
// byte of a listing's answer.
func TestCounterCountsTraffic(t *testing.T) {
	cnt := zkharness.NewCounter()
	conn, _ := connect(t, server.Addr(), cnt.Dialer(nil))
	dir := "/" + recipestest.Namespace(t)
	if _, err := conn.Create(dir, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	const children, nameLen = 20, 40
	for i := range children {
		name := fmt.Sprintf("%s/%0*d", dir, nameLen, i)
		if _, err := conn.Create(name, nil, zk.FlagEphemeral, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	_, _, w, err := conn.ExistsW(dir + "/" + fmt.Sprintf("%0*d", nameLen, 0))
	if err != nil {
		t.Fatal(err)
	}
	reqs, bytes := cnt.Requests(), cnt.BytesIn()
	if _, _, err := conn.Children(dir); err != nil {
		t.Fatal(err)
	}
	if got := cnt.Requests() - reqs; got != 1 {
		t.Fatalf("%d requests counted for one listing", got)
	}
	if got := cnt.RequestsOf(zkharness.OpGetChildren2); got != 1 {
		t.Fatalf("%d getChildren2 requests counted, want 1", got)
	}
	if got := cnt.RequestsOf(zkharness.OpCreate); got != children+1 {
		t.Fatalf("%d create requests counted, want %d", got, children+1)
	}
	if got := cnt.BytesIn() - bytes; got < children*nameLen {
		t.Fatalf("%d bytes counted for a listing of %d names of %d bytes", got, children, nameLen)
	}
	notes := cnt.Notifications()
	if err := conn.Delete(dir+"/"+fmt.Sprintf("%0*d", nameLen, 0), -1); err != nil {
		t.Fatal(err)
	}
	<-w
	if got := cnt.Notifications() - notes; got != 1 {
		t.Fatalf("%d notifications counted for one watch", got)
	}
}

// The counter names the containers a client made, and only those: not a
// persistent node, nor a container create the server refused.
func TestCounterNamesContainersCreated(t *testing.T) {
	cnt := zkharness.NewCounter()
	conn, _ := connect(t, server.Addr(), cnt.Dialer(nil))
	dir := "/" + recipestest.Namespace(t)
	if _, err := conn.Create(dir, nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{dir + "/c1", dir + "/c2"} {
		if _, err := conn.CreateContainer(p, nil, zk.FlagContainer, zk.WorldACL(zk.PermAll)); err != nil {
			t.Fatal(err)
		}
	}
	// One the server refuses (it exists) was not made by this request.
	if _, err := conn.CreateContainer(dir+"/c1", nil, zk.FlagContainer, zk.WorldACL(zk.PermAll)); !errors.Is(err, zk.ErrNodeExists) {
		t.Fatalf("a second create of %s/c1: %v, want ErrNodeExists", dir, err)
	}
	if got, want := cnt.ContainersCreated(), []string{dir + "/c1", dir + "/c2"}; !slices.Equal(got, want) {
		t.Fatalf("ContainersCreated = %q, want %q", got, want)
	}
}

// A killed member restarted without a quorum of others running keeps its
// data: it may be the only copy of what was committed.
func TestEnsembleRestartWithoutQuorumKeepsData(t *testing.T) {
	ens, err := zkharness.StartEnsemble(1)
	if err != nil {
		t.Fatal(err)
	}
	defer ens.Close()
	conn, _ := connect(t, ens.ConnectString(), nil)
	if _, err := conn.Create("/kept", nil, 0, zk.WorldACL(zk.PermAll)); err != nil {
		t.Fatal(err)
	}
	conn.Close()
	ens.Kill(0)
	if err := ens.Restart(0); err != nil {
		t.Fatal(err)
	}
	conn, _ = connect(t, ens.ConnectString(), nil)
	if ok, _, err := conn.Exists("/kept"); err != nil || !ok {
		t.Fatalf("/kept after the only member was killed and restarted: exists %v (%v)", ok, err)
	}
}
