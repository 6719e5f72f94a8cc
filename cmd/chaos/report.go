package main

import (
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"runtime"
	"slices"
	"strings"
	"text/tabwriter"
	"time"
)

// report is a run's outcome: printed as one JSON line, then as a table.
type report struct {
	Workload  string  `json:"workload"` // lock, or queue with its mode
	Date      string  `json:"date"`
	WallS     float64 `json:"wall_s"`
	FaultsS   float64 `json:"faults_s"`
	Workers   int     `json:"workers"`
	SessionMS int64   `json:"session_ms"`
	TickMS    int64   `json:"tick_ms"`
	PauseMS   int64   `json:"pause_ms"`
	CPUs      int     `json:"cpus"`
	Seed      uint64  `json:"seed"`
	Dir       string  `json:"dir"`

	Faults       map[string]int `json:"faults"`
	FaultsMissed int            `json:"faults_missed"` // faults that found no target (no holder at that moment)

	Holds       int            `json:"holds"`        // acquisitions
	HoldsLost   int            `json:"holds_lost"`   // holds the holder was told were lost
	NodesEnded  map[string]int `json:"nodes_ended"`  // lock nodes by how they ended
	Writes      map[string]int `json:"writes"`       // fenced writes by outcome
	Entries     int            `json:"entries"`      // log entries committed
	EntriesGone int            `json:"entries_gone"` // of which deleted
	Txns        int            `json:"txns"`         // committed transactions read from the logs
	Progress    map[string]int `json:"progress"`     // per worker: acquisitions (queue: items consumed) after the last fault

	Puts         map[string]int `json:"puts,omitempty"`          // queue: Puts by outcome
	Items        int            `json:"items,omitempty"`         // queue: item nodes committed
	ItemsRemoved int            `json:"items_removed,omitempty"` // queue: of which removed
	Deliveries   int            `json:"deliveries,omitempty"`    // queue: items reported consumed

	Increments          map[string]int `json:"increments,omitempty"`           // the atomic long's increments by outcome
	IncrementsCommitted int            `json:"increments_committed,omitempty"` // its committed writes
	CounterFinal        int64          `json:"counter_final,omitempty"`        // its value at the end
	Members             map[string]int `json:"members"`                        // member nodes and service instances: nodes, creates, Lost events

	Violations     map[string]int      `json:"violations"`
	Examples       map[string][]string `json:"examples,omitempty"`
	Server         map[string]int      `json:"server"`
	ServerExamples map[string][]string `json:"server_examples,omitempty"`
	Notes          map[string]int      `json:"notes"`
	NoteExamples   map[string][]string `json:"note_examples,omitempty"`
	OK             bool                `json:"ok"` // no client-side violation
}

// count fills in the run's figures from the evidence.
func (r *report) count(in checkInput, h *replay, holds map[holdKey]*holdRec) {
	r.Workload = "lock"
	r.Workers = in.workers
	r.NodesEnded = make(map[string]int)
	for _, n := range h.locks {
		kind := n.EndKind
		if n.End == 0 {
			kind = "present"
		}
		r.NodesEnded[kind]++
	}
	r.Writes = make(map[string]int)
	r.Progress = make(map[string]int)
	for _, ev := range in.events {
		switch ev.Ev {
		case evWrite:
			r.Writes[ev.Outcome]++
		case evAcquired:
			r.Holds++
			if ev.T > in.lastFaultEnd.UnixNano() {
				r.Progress[fmt.Sprintf("w%d", ev.Worker)]++
			}
		}
	}
	for _, hr := range holds {
		if hr.told() {
			r.HoldsLost++
		}
	}
	r.Entries = len(h.entries)
	for _, e := range h.entries {
		if e.Deleted != 0 {
			r.EntriesGone++
		}
	}
	r.Txns = h.count
	r.OK = len(r.Violations) == 0
}

// fill adds the run's settings and faults.
func (r *report) fill(cfg config, faults []faultRecord, wall time.Duration) {
	r.Date = time.Now().UTC().Format(time.DateOnly)
	r.WallS = wall.Round(100 * time.Millisecond).Seconds()
	r.SessionMS, r.TickMS, r.PauseMS = cfg.session.Milliseconds(), cfg.tick.Milliseconds(), cfg.pause.Milliseconds()
	r.CPUs, r.Seed, r.Dir = runtime.NumCPU(), cfg.seed, cfg.dir
	r.Faults = make(map[string]int)
	if len(faults) > 0 {
		r.FaultsS = faults[len(faults)-1].End.Sub(faults[0].Start).Round(100 * time.Millisecond).Seconds()
	}
	for _, f := range faults {
		if f.Target == "" {
			r.FaultsMissed++
			continue
		}
		r.Faults[f.Kind]++
	}
}

// writeJSON writes the report as one line.
func (r *report) writeJSON(w io.Writer) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	_, err = w.Write(append(b, '\n'))
	return err
}

// writeTable writes the report for people.
func (r *report) writeTable(w io.Writer) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintf(tw, "chaos run\t%s, %s workload, %d workers, session %d ms, SIGSTOP %d ms, %.0f s of faults, %.0f s in all, %d CPUs\n",
		r.Date, r.Workload, r.Workers, r.SessionMS, r.PauseMS, r.FaultsS, r.WallS, r.CPUs)
	fmt.Fprintf(tw, "faults\t%s (missed: %d)\n", kv(r.Faults), r.FaultsMissed)
	if strings.HasPrefix(r.Workload, "queue") {
		fmt.Fprintf(tw, "puts\t%s; item nodes committed %d, removed %d; items consumed %d; %d transactions in the logs\n", kv(r.Puts), r.Items, r.ItemsRemoved, r.Deliveries, r.Txns)
		fmt.Fprintf(tw, "lock nodes\tended: %s\n", kv(r.NodesEnded))
		fmt.Fprintf(tw, "after the last fault\t%s (items consumed per worker)\n", kv(r.Progress))
	} else {
		fmt.Fprintf(tw, "holds\t%d (told lost: %d); lock nodes ended: %s\n", r.Holds, r.HoldsLost, kv(r.NodesEnded))
		fmt.Fprintf(tw, "fenced writes\t%s; entries committed %d, deleted %d; %d transactions in the logs\n", kv(r.Writes), r.Entries, r.EntriesGone, r.Txns)
		fmt.Fprintf(tw, "after the last fault\t%s (acquisitions per worker)\n", kv(r.Progress))
	}
	if r.Increments != nil {
		fmt.Fprintf(tw, "atomic increments\t%s; committed %d, the counter ends at %d\n", kv(r.Increments), r.IncrementsCommitted, r.CounterFinal)
	}
	fmt.Fprintf(tw, "membership\t%s\n", kv(r.Members))
	tw.Flush()
	fmt.Fprintln(w)
	fmt.Fprintln(tw, "check\tresult")
	for _, c := range checks(r.Workload) {
		n := 0
		for _, k := range c.kinds {
			n += r.Violations[k]
		}
		res := "ok"
		if n > 0 {
			var parts []string
			for _, k := range c.kinds {
				if r.Violations[k] > 0 {
					parts = append(parts, fmt.Sprintf("%s %d", k, r.Violations[k]))
				}
			}
			res = "VIOLATED: " + strings.Join(parts, ", ")
		}
		fmt.Fprintf(tw, "%s\t%s\n", c.name, res)
	}
	fmt.Fprintf(tw, "server-side findings\t%s\n", orNone(kv(r.Server)))
	fmt.Fprintf(tw, "notes\t%s\n", orNone(kv(r.Notes)))
	tw.Flush()
	for _, group := range []map[string][]string{r.Examples, r.ServerExamples} {
		for _, k := range slices.Sorted(maps.Keys(group)) {
			for _, e := range group[k] {
				fmt.Fprintf(w, "  %s: %s\n", k, e)
			}
		}
	}
	if r.OK {
		fmt.Fprintln(w, "PASS: no client-side violation")
	} else {
		fmt.Fprintf(w, "FAIL: client-side violations (worker output in %s)\n", r.Dir)
	}
}

// checks returns a workload's checks in the order the table shows them,
// each with the violation kinds it reports.
func checks(workload string) []struct {
	name  string
	kinds []string
} {
	if strings.HasPrefix(workload, "queue") {
		return []struct {
			name  string
			kinds []string
		}{
			{"(q1) no item lost (lock-safe)", []string{vItemLost}},
			{"(q2) no unexplained second delivery", []string{vDuplicate2, vUnknownItem}},
			{"(q3) acknowledged puts committed", []string{vPutAckMissing}},
			{"(q4) the queue drained", []string{vItemsLeft}},
			{"(d) no raw error", []string{vRawError}},
			{"(f) no lock node left behind", []string{vLeftBehind}},
			{"(g) progress after the faults", []string{vNoProgress}},
			{"workers ran and stopped", []string{vWorkerHung, vWorkerFailed}},
		}
	}
	return []struct {
		name  string
		kinds []string
	}{
		{"(a) no stale or unfenced write", []string{vStaleWrite, vUnfencedWrite, vTokenMismatch}},
		{"(b) no library write after loss", []string{vWriteAfterLoss, vAckUndone}},
		{"(c) no loss untold", []string{vLostUnreported, vNoOutcome}},
		{"(d) no raw error", []string{vRawError}},
		{"(e) refusals did not commit", []string{vRefusedCommitted, vAckMissing, vDuplicate}},
		{"(f) no node left behind", []string{vLeftBehind}},
		{"(g) progress after the faults", []string{vNoProgress}},
		{"(h) one holder at a time", []string{vNotFirst, vUnknownNode}},
		{"(i) every increment counted once", []string{vIncAckMissing, vIncUntold, vIncDuplicate, vIncNotByOne}},
		{"(m) members once, back after faults", []string{vMemberDuplicate, vMemberMissing}},
		{"workers ran and stopped", []string{vWorkerHung, vWorkerFailed}},
	}
}

func kv(m map[string]int) string {
	var parts []string
	for _, k := range slices.Sorted(maps.Keys(m)) {
		parts = append(parts, fmt.Sprintf("%s %d", k, m[k]))
	}
	return strings.Join(parts, ", ")
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}
