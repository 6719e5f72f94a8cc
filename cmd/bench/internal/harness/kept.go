package harness

// keptClients holds each row's clients of one throughput workload across
// its turns (--keep-sessions), so that a turn measures the workload alone,
// not a fresh session's start, and turns can be short: many short turns
// pair the rows more closely in time than a few long ones. The turns run
// one after another, so it needs no lock.
type keptClients struct {
	rows map[string]*keptRow // by implementation
}

type keptRow struct {
	sessions []session
	closeAll func()
	err      error
}

// sessions returns n sessions of im for a turn of a throughput workload,
// and the func the turn calls when it ends. Without kept clients they are
// new and the func closes them; with them, the first turn of each row
// opens them and the func does nothing.
func (e env) sessions(im impl, n int) (sessions []session, done func(), err error) {
	if e.kept == nil {
		return connectAll(im, e.addr, n)
	}
	k := e.kept
	row, ok := k.rows[im.name()]
	if !ok {
		row = &keptRow{}
		row.sessions, row.closeAll, row.err = connectAll(im, e.addr, n)
		k.rows[im.name()] = row
	}
	return row.sessions, func() {}, row.err
}

// close closes every row's clients.
func (k *keptClients) close() {
	if k == nil {
		return
	}
	for _, row := range k.rows {
		if row.err == nil {
			row.closeAll()
		}
	}
	k.rows = nil
}
