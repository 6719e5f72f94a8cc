package node

// pending reports whether the node may not hold the latest data.
func (n *Node) pending() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.written < n.gen
}

// snapshot returns the data and its generation.
func (n *Node) snapshot() ([]byte, uint64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.data, n.gen
}

// setPath records the node's path.
func (n *Node) setPath(p string) {
	n.mu.Lock()
	n.path = p
	n.mu.Unlock()
}

// setWritten records that the node holds the data of generation gen.
func (n *Node) setWritten(gen uint64) {
	n.mu.Lock()
	if gen > n.written {
		n.written = gen
		n.changedLocked()
	}
	n.mu.Unlock()
}

// setInPlace records whether the node is there and tells the listeners
// when that changes.
func (n *Node) setInPlace(in bool) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.inPlace == in {
		return
	}
	n.inPlace = in
	if in {
		select {
		case <-n.first:
		default:
			close(n.first)
		}
		n.events.Post(Event{Type: Created, Path: n.path})
	} else {
		n.events.Post(Event{Type: Lost, Path: n.path})
	}
	n.changedLocked()
}

// refuse records why the latest attempt failed (nil: it succeeded).
func (n *Node) refuse(err error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if err == nil && n.refusal == nil {
		return
	}
	n.refusal = err
	if err != nil {
		n.refusals++
	}
	n.changedLocked()
}

// changedLocked wakes the waiters of WaitForInitialCreate and SetData.
// Callers hold n.mu.
func (n *Node) changedLocked() {
	close(n.progress)
	n.progress = make(chan struct{})
}

// closedOrDone reports whether the Node is closed or its lifetime ended.
func (n *Node) closedOrDone() bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.state == closed
}
