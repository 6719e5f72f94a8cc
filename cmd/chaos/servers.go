package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/retry"
)

// serverView is one member's state at the end of a run.
type serverView struct {
	member     int
	nodes      map[string]nodeView // every node under /chaos
	err        error               // the tree could not be read
	digestMism int64               // mntr's zk_digest_mismatches_count; -1 if unknown
	syncNPEs   int                 // NullPointerExceptions in its log (ZOOKEEPER-4394's symptom)
}

// nodeView is one node as a member sees it.
type nodeView struct {
	Czxid     int64
	Ephemeral int64 // its owner session; 0 for a persistent or container node
	Data      string
}

// serverViews reads every member's tree under the lock's and the log's
// common parent, its digest counter and its log.
func (h *harness) serverViews(ctx context.Context) ([]serverView, error) {
	root := commonParent(h.cfg.lockPath, h.cfg.logPath)
	var views []serverView
	for i := range h.ens.Size() {
		v := serverView{member: i, digestMism: -1}
		v.nodes, v.err = readTree(ctx, h.ens.Member(i), root)
		cctx, cancel := context.WithTimeout(ctx, 10*time.Second)
		out, err := h.ens.Command(cctx, i, "mntr")
		cancel()
		if err == nil {
			v.digestMism = mntrValue(out, "zk_digest_mismatches_count")
		}
		if path, err := h.ens.LogPath(i); err == nil {
			b, _ := os.ReadFile(path)
			v.syncNPEs = strings.Count(string(b), "java.lang.NullPointerException")
		}
		views = append(views, v)
	}
	return views, nil
}

// commonParent returns the deepest path both a and b are under.
func commonParent(a, b string) string {
	for p := parentOf(a); ; p = parentOf(p) {
		if p == "/" || strings.HasPrefix(b, p+"/") {
			return p
		}
	}
}

// parentOf returns the parent of an absolute path ("/" for "/x" and "/").
func parentOf(p string) string {
	i := strings.LastIndexByte(p, '/')
	if i <= 0 {
		return "/"
	}
	return p[:i]
}

// mntrValue returns the value of key in mntr's output, -1 if absent.
func mntrValue(out, key string) int64 {
	for _, line := range strings.Split(out, "\n") {
		if v, ok := strings.CutPrefix(line, key+"\t"); ok {
			n, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err == nil {
				return n
			}
		}
	}
	return -1
}

// readTree reads every node under root from the one server at addr, after
// a sync so that a follower has caught up with its leader.
func readTree(ctx context.Context, addr, root string) (map[string]nodeView, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	conn, err := framework.New(addr, framework.WithSessionTimeout(10*time.Second),
		framework.WithRetryPolicy(retry.RetryNTimes(3, 100*time.Millisecond)))
	if err != nil {
		return nil, err
	}
	defer conn.Close()
	if err := conn.Start(ctx); err != nil {
		return nil, err
	}
	if err := conn.BlockUntilConnected(ctx); err != nil {
		return nil, fmt.Errorf("member %s: no session: %w", addr, err)
	}
	if err := conn.Sync(ctx, root); err != nil && !errors.Is(err, framework.ErrNoNode) {
		return nil, fmt.Errorf("member %s: sync: %w", addr, err)
	}
	nodes := make(map[string]nodeView)
	var walk func(path string) error
	walk = func(path string) error {
		data, stat, err := conn.Get(ctx, path)
		if errors.Is(err, framework.ErrNoNode) {
			return nil
		}
		if err != nil {
			return err
		}
		nodes[path] = nodeView{Czxid: stat.Czxid, Ephemeral: stat.EphemeralOwner, Data: string(data)}
		if stat.NumChildren == 0 {
			return nil
		}
		kids, _, err := conn.Children(ctx, path)
		if errors.Is(err, framework.ErrNoNode) {
			return nil
		}
		if err != nil {
			return err
		}
		for _, k := range kids {
			if err := walk(strings.TrimSuffix(path, "/") + "/" + k); err != nil {
				return err
			}
		}
		return nil
	}
	if err := walk(root); err != nil {
		return nil, fmt.Errorf("member %s: %w", addr, err)
	}
	return nodes, nil
}
