package zkharness

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// WithStockSettings reaches the JVM's command line: none of the tests'
// quick-start flags and no short container interval, while a default server
// has both.
func TestStockSettingsReachTheJVM(t *testing.T) {
	quick := func(args []string) bool {
		return slices.Contains(args, "-XX:TieredStopAtLevel=1") &&
			slices.ContainsFunc(args, func(a string) bool { return strings.HasPrefix(a, "-Dznode.container.checkIntervalMs=") })
	}
	for _, stock := range []bool{false, true} {
		var opts []Option
		if stock {
			opts = append(opts, WithStockSettings())
		}
		z := zooKeeper{java: "java", classpath: "zookeeper.jar", jvmFlags: newConfig(opts).jvmFlags()}
		args := z.command("zoo.cfg", os.Stderr).Args
		if quick(args) == stock {
			t.Errorf("stock=%v: JVM started with %q", stock, args)
		}
	}
}
