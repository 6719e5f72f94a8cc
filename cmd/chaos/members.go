package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/gocurator/curator/framework"
)

// Membership violations.
const (
	vMemberDuplicate = "duplicate_member_node"   // an incarnation's sequential member node existed under two names
	vMemberMissing   = "membership_not_restored" // after the faults, a worker's member node or instance was not back, once, on its session
)

// memberView is one member node or instance node as the admin client read
// it.
type memberView struct {
	path  string
	owner int64
}

// waitMembership waits (up to timeout) until every worker's current
// incarnation is a member once, on its current session: one member node
// holding its name, its service instance holding its incarnation, both
// owned by the session of its latest Created event; and no node of an
// earlier incarnation is left.
func (h *harness) waitMembership(ctx context.Context, timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for {
		problems := h.membershipProblems(ctx)
		if len(problems) == 0 {
			return nil
		}
		if time.Now().After(deadline) || ctx.Err() != nil {
			return errors.New(strings.Join(problems, "; "))
		}
		sleep(ctx, 200*time.Millisecond)
	}
}

// membershipProblems says what is not yet as waitMembership wants it.
func (h *harness) membershipProblems(ctx context.Context) []string {
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	kids, _, err := h.admin.Children(ctx, h.cfg.members)
	if err != nil {
		return []string{"listing the members: " + err.Error()}
	}
	byName := make(map[string][]memberView)
	for _, kid := range kids {
		p := framework.JoinPath(h.cfg.members, kid)
		data, st, err := h.admin.Get(ctx, p)
		if errors.Is(err, framework.ErrNoNode) {
			continue
		}
		if err != nil {
			return []string{"reading " + p + ": " + err.Error()}
		}
		byName[string(data)] = append(byName[string(data)], memberView{p, st.EphemeralOwner})
	}
	var problems []string
	current := make(map[string]bool)
	for id := 1; id <= h.cfg.workers; id++ {
		inc := h.procs[id].inc
		name := holderName(id, inc)
		current[name] = true
		session := h.memberSession(id, inc)
		switch nodes := byName[name]; {
		case len(nodes) != 1:
			problems = append(problems, fmt.Sprintf("%s has %d member nodes", name, len(nodes)))
		case nodes[0].owner != session:
			problems = append(problems, fmt.Sprintf("%s's member node %s is owned by %#x, its session is %#x", name, nodes[0].path, nodes[0].owner, session))
		}
		ip := fmt.Sprintf("%s/workers/w%d", h.cfg.services, id)
		data, st, err := h.admin.Get(ctx, ip)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s's instance %s: %v", name, ip, err))
			continue
		}
		var inst struct {
			Payload memberPayload `json:"payload"`
		}
		switch {
		case json.Unmarshal(data, &inst) != nil || inst.Payload.Inc != inc:
			problems = append(problems, fmt.Sprintf("%s's instance %s holds %s", name, ip, data))
		case st.EphemeralOwner != session:
			problems = append(problems, fmt.Sprintf("%s's instance %s is owned by %#x, its session is %#x", name, ip, st.EphemeralOwner, session))
		}
	}
	for _, name := range slices.Sorted(maps.Keys(byName)) {
		if !current[name] {
			problems = append(problems, fmt.Sprintf("member node of %s (an earlier incarnation) left: %v", name, byName[name]))
		}
	}
	return problems
}

// memberSession returns the session of the latest Created event of an
// incarnation's member node.
func (h *harness) memberSession(id, inc int) int64 {
	evs, _ := readEvents(h.workerOut(id))
	var session int64
	for _, ev := range evs {
		if ev.Ev == evMember && ev.Inc == inc && ev.Outcome == "created" {
			session = ev.Session
		}
	}
	return session
}

// memberCounts is what the committed history did to the members.
type memberCounts struct {
	nodes, creates, instanceCreates int
}

// checkMembers: an incarnation's sequential member node keeps one name for
// good, across every re-creation (a second name is a second node: the
// protected create or the re-creation went wrong). Empty paths check
// nothing (a run without members).
func checkMembers(txns []txn, membersPath, servicesPath string, v *tally) memberCounts {
	var c memberCounts
	paths := make(map[string]map[string]bool) // data -> paths created with it
	for _, t := range txns {
		for _, op := range t.ops {
			if op.Type != txnCreate {
				continue
			}
			switch {
			case membersPath != "" && strings.HasPrefix(op.Path, membersPath+"/"):
				c.creates++
				d := string(op.Data)
				if paths[d] == nil {
					paths[d] = make(map[string]bool)
				}
				if !paths[d][op.Path] {
					c.nodes++
				}
				paths[d][op.Path] = true
			case servicesPath != "" && strings.HasPrefix(op.Path, servicesPath+"/workers/"):
				c.instanceCreates++
			}
		}
	}
	for _, d := range slices.Sorted(maps.Keys(paths)) {
		if len(paths[d]) > 1 {
			v.add(vMemberDuplicate, "%s's member node was created under %d names: %v", d, len(paths[d]), slices.Sorted(maps.Keys(paths[d])))
		}
	}
	return c
}
