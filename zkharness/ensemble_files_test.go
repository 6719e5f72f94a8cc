package zkharness_test

import (
	"testing"

	"github.com/gocurator/curator/zkharness"
)

// A member that does not exist has no data directory and no log.
func TestEnsembleFilesOfNoMember(t *testing.T) {
	var e zkharness.Ensemble
	if d, err := e.DataDir(0); err == nil {
		t.Errorf("DataDir(0) of an empty ensemble = %q, want an error", d)
	}
	if p, err := e.LogPath(-1); err == nil {
		t.Errorf("LogPath(-1) = %q, want an error", p)
	}
}
