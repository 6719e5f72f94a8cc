package zkerr

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/go-zookeeper/zk"
)

// The texts Is reads were read from go-zookeeper v1.0.4's ErrCode.toError.
// Another version may word them otherwise: check them again, then change
// the version here.
func TestPinnedToGoZookeeperVersion(t *testing.T) {
	const require = "github.com/go-zookeeper/zk v1.0.4"
	mod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(mod), "\t"+require+"\n") || strings.Contains(string(mod), "replace github.com/go-zookeeper/zk") {
		t.Fatalf("go.mod does not require %s as it is: zkerr's texts were read from that version", require)
	}
}

func TestIs(t *testing.T) {
	unknown := func(code int32) error { return fmt.Errorf("unknown error: %v", code) } // go-zookeeper's wording
	for _, tt := range []struct {
		err  error
		code int32
		want bool
	}{
		{unknown(-7), OperationTimeout, true},
		{fmt.Errorf("get /x: %w", unknown(-7)), OperationTimeout, true},
		{unknown(-2), RuntimeInconsistency, true},
		{unknown(-2), OperationTimeout, false},
		{unknown(-6), Unimplemented, true},
		{unknown(-6), OperationTimeout, false},
		{unknown(-72), OperationTimeout, false},
		{zk.ErrUnknown, OperationTimeout, false}, // "zk: unknown error", a sentinel (it also links go-zookeeper for the pin)
		{errors.New("unknown error: x"), OperationTimeout, false},
		{nil, OperationTimeout, false},
	} {
		if got := Is(tt.err, tt.code); got != tt.want {
			t.Errorf("Is(%v, %d) = %v, want %v", tt.err, tt.code, got, tt.want)
		}
	}
}
