package leader_test

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/gocurator/curator/framework"
)

// The interop test's record of double leaders. A leader that finds another
// marker beside its own has seen two participants acting as leader at once;
// it records what it saw (every marker, every election node, with their
// data and ephemeral owners) and the test decides whose fault it was: the
// legitimate leader owns the first election node, the other markers'
// creators are intruders. Curator 5.4.0 has a known double-leader bug
// (CURATOR-696, fixed in 5.7.0): after an outage longer than its session a
// Java latch can claim leadership with its stale node. A double leader whose
// intruders all did that is counted apart, with its evidence; any other
// fails the test (see verdict).

// seenNode is one node a detector saw: its name, data and ephemeral owner.
type seenNode struct {
	name, data string
	owner      int64
	gone       bool // deleted between the listing and the read
}

func (e seenNode) String() string {
	if e.gone {
		return e.name + " (gone)"
	}
	return fmt.Sprintf("%s data=%q owner=%#x", e.name, e.data, e.owner)
}

// sighting is one detector's view of two leaders at once.
type sighting struct {
	by       string     // the detector's id
	markers  []seenNode // the marker directory's listing
	election []seenNode // the election's nodes, in queue order
}

// markerOwner returns the id in a marker's name, m-<id>-NNNNNNNNNN.
func markerOwner(name string) string {
	id := strings.TrimPrefix(name, "m-")
	if i := strings.LastIndexByte(id, '-'); i >= 0 {
		id = id[:i]
	}
	return id
}

// intruders returns the ids whose markers stood beside the legitimate
// leader's: the owner of the first election node (if that was still there).
// With no other, it returns the owners of all the markers.
func (s sighting) intruders() []string {
	var first *seenNode
	if len(s.election) > 0 && !s.election[0].gone {
		first = &s.election[0]
	}
	var out []string
	for _, m := range s.markers {
		id := markerOwner(m.name)
		legit := first != nil && id == first.data && (m.gone || m.owner == first.owner)
		if !legit && !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	if len(out) == 0 { // the leader's markers only: it left one behind
		for _, m := range s.markers {
			if id := markerOwner(m.name); !slices.Contains(out, id) {
				out = append(out, id)
			}
		}
	}
	return out
}

func (s sighting) String() string {
	return fmt.Sprintf("seen by %s: markers %v; election %v", s.by, s.markers, s.election)
}

// leaderLog collects the sightings of every participant, and the Java
// latches' claims of leadership with a node not of their session.
type leaderLog struct {
	mu        sync.Mutex
	sightings []sighting
	stale     []string        // LEADING lines whose node's owner is not the peer's session
	staleIDs  map[string]bool // the peers that printed one
	spanned   map[string]bool // markers a Java peer made after the term it checked them in (SPANNED lines)
	leadings  map[string][]string
	bad       []string // lines it could not read
}

func newLeaderLog() *leaderLog {
	return &leaderLog{leadings: map[string][]string{}, staleIDs: map[string]bool{}, spanned: map[string]bool{}}
}

// goSaw records what a Go leader saw when it found other markers: it reads
// every marker and the election's nodes at once.
func (r *leaderLog) goSaw(ctx context.Context, c *framework.Client, by string, markers []string) {
	s := sighting{by: by, markers: readSeenNodes(ctx, c, interopMarkerDir, markers)}
	if names, _, err := c.Children(ctx, interopElectionPath); err == nil {
		s.election = readSeenNodes(ctx, c, interopElectionPath, sortCuratorNodes(names))
	}
	r.mu.Lock()
	r.sightings = append(r.sightings, s)
	r.mu.Unlock()
}

func readSeenNodes(ctx context.Context, c *framework.Client, dir string, names []string) []seenNode {
	es := make([]seenNode, len(names))
	for i, n := range names {
		es[i].name = n
		data, st, err := c.Get(ctx, framework.JoinPath(dir, n))
		if err != nil {
			es[i].gone = errors.Is(err, framework.ErrNoNode)
			es[i].data = "error: " + err.Error()
			continue
		}
		es[i].data, es[i].owner = string(data), st.EphemeralOwner
	}
	return es
}

// sortCuratorNodes sorts election nodes as Curator does: on the sequence number,
// the last ten characters of every name.
func sortCuratorNodes(names []string) []string {
	slices.SortStableFunc(names, func(a, b string) int { return strings.Compare(seqSuffix(a), seqSuffix(b)) })
	return names
}

func seqSuffix(name string) string { return name[max(0, len(name)-10):] }

// javaSaw records a Java peer's VIOLATION line:
// "VIOLATION <id>\t<markers>\t<election>", entries "name|data|owner".
func (r *leaderLog) javaSaw(line string) {
	f := strings.Split(strings.TrimPrefix(line, "VIOLATION "), "\t")
	var s sighting
	var err error
	if len(f) == 3 {
		s.by = f[0]
		var e1, e2 error
		s.markers, e1 = parseSeenNodes(f[1])
		s.election, e2 = parseSeenNodes(f[2])
		err = errors.Join(e1, e2)
	} else {
		err = errors.New("not 3 fields")
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.bad = append(r.bad, fmt.Sprintf("%q: %v", line, err))
		return
	}
	r.sightings = append(r.sightings, s)
}

func parseSeenNodes(s string) ([]seenNode, error) {
	var es []seenNode
	if s == "" {
		return nil, nil
	}
	for _, part := range strings.Split(s, ",") {
		f := strings.Split(part, "|")
		if len(f) != 3 {
			return nil, fmt.Errorf("entry %q", part)
		}
		e := seenNode{name: f[0], data: f[1]}
		switch f[2] {
		case "gone":
			e.gone = true
		case "?":
			e.data = "unreadable"
		default:
			owner, err := parseJavaSession(f[2])
			if err != nil {
				return nil, err
			}
			e.owner = owner
		}
		es = append(es, e)
	}
	return es, nil
}

// javaLeading records a Java peer's LEADING line, "<path> <owner> <session>":
// a latch whose node is gone or owned by another session claimed leadership
// with a stale node (CURATOR-696). A selector reports no node ("-").
func (r *leaderLog) javaLeading(id, rest string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.leadings[id] = append(r.leadings[id], rest)
	f := strings.Fields(rest)
	if len(f) != 3 {
		r.bad = append(r.bad, fmt.Sprintf("%s: LEADING %q", id, rest))
		return
	}
	if isStaleClaim("LEADING " + rest) { // never a selector's: it names no node
		r.stale = append(r.stale, fmt.Sprintf("%s led with %s, owned by %s, its session %s", id, f[0], f[1], f[2]))
		r.staleIDs[id] = true
	}
}

// sightingCount returns how many double leaders have been seen so far.
func (r *leaderLog) sightingCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.sightings)
}

// claims returns the LEADING lines of each Java peer.
func (r *leaderLog) claims() map[string][]string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := map[string][]string{}
	for id, ls := range r.leadings {
		out[id] = slices.Clone(ls)
	}
	return out
}

// verdict sorts the sightings. A double leader counts apart as the Java
// side's (Curator 5.4.0's CURATOR-696) only if every intruder is a Java
// latch that claimed leadership with a stale node (its LEADING line: a node
// gone or owned by another session); any other is a failure: an intruder of
// the Go side is Go's fault, and a Java intruder with no stale claim means
// that Curator and this package disagree on who leads, which is not the
// known bug.
func (r *leaderLog) verdict(isJava func(id string) bool) (failures, javaCaused []string, stale, bad []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.sightings {
		if r.spannedOnly(s) {
			javaCaused = append(javaCaused, "a Java marker check that outlived its term (the harness's, not an election's): "+s.String())
			continue
		}
		in := s.intruders()
		known := len(in) > 0
		for _, id := range in {
			known = known && isJava(id) && r.staleIDs[id]
		}
		if known {
			ev := s.String()
			for _, id := range in {
				ev += fmt.Sprintf("; %s's claims of leadership (node, its owner, %s's session): %v", id, id, r.leadings[id])
			}
			javaCaused = append(javaCaused, ev)
			continue
		}
		why := "caused by the Go side"
		if !slices.ContainsFunc(in, func(id string) bool { return !isJava(id) }) {
			why = "of a Java peer with no stale node (not CURATOR-696: Curator and Go disagree)"
		}
		ev := fmt.Sprintf("%s, intruders %v: %v", why, in, s)
		for _, id := range in {
			if isJava(id) {
				ev += fmt.Sprintf("; %s's claims of leadership: %v", id, r.leadings[id])
			}
		}
		failures = append(failures, ev)
	}
	return failures, javaCaused, slices.Clone(r.stale), slices.Clone(r.bad)
}

// javaSpanned records a Java peer's SPANNED line, "<marker> <id> ...": a
// marker check begun while it led, just before an outage, whose create
// Curator retried into the next session, when another led. The marker is
// the test harness's act on a stale hasLeadership, not the election's.
func (r *leaderLog) javaSpanned(rest string) {
	marker, _, _ := strings.Cut(rest, " ")
	r.mu.Lock()
	defer r.mu.Unlock()
	r.spanned[marker] = true
}

// spannedOnly reports whether s saw two leaders only because of markers a
// Java peer made after its term: without them, only the markers of the
// legitimate leader (the first election node's) are left. r.mu is held.
func (r *leaderLog) spannedOnly(s sighting) bool {
	if len(s.election) == 0 || s.election[0].gone {
		return false
	}
	found := false
	var ids []string
	for _, m := range s.markers {
		if r.spanned[m.name] {
			found = true
			continue
		}
		if id := markerOwner(m.name); !slices.Contains(ids, id) {
			ids = append(ids, id)
		}
	}
	return found && (len(ids) == 0 || len(ids) == 1 && ids[0] == s.election[0].data)
}
