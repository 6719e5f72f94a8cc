package zkharness

// DataDir returns member i's data directory: its myid file, and under
// version-2 ZooKeeper's snapshots and transaction logs (log.<zxid>). A
// killed member's directory is wiped when it restarts (see the Ensemble
// doc), so read what it holds between Kill and Restart if you need it.
func (e *Ensemble) DataDir(i int) (string, error) {
	if err := e.member(i); err != nil {
		return "", err
	}
	return e.members[i].dataDir, nil
}

// LogPath returns the file member i's server writes its log to; it is
// appended to across restarts.
func (e *Ensemble) LogPath(i int) (string, error) {
	if err := e.member(i); err != nil {
		return "", err
	}
	return e.members[i].logPath, nil
}
