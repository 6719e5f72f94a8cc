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

// Extended types (TTL nodes) are on by default and off with
// WithoutExtendedTypes, whatever the other settings.
func TestExtendedTypesReachTheJVM(t *testing.T) {
	for _, tt := range []struct {
		opts []Option
		want string
	}{
		{nil, "-Dzookeeper.extendedTypesEnabled=true"},
		{[]Option{WithStockSettings()}, "-Dzookeeper.extendedTypesEnabled=true"},
		{[]Option{WithoutExtendedTypes()}, "-Dzookeeper.extendedTypesEnabled=false"},
		{[]Option{WithStockSettings(), WithoutExtendedTypes()}, "-Dzookeeper.extendedTypesEnabled=false"},
	} {
		z := zooKeeper{java: "java", classpath: "zookeeper.jar", jvmFlags: newConfig(tt.opts).jvmFlags()}
		args := z.command("zoo.cfg", os.Stderr).Args
		n := 0
		for _, a := range args {
			if strings.HasPrefix(a, "-Dzookeeper.extendedTypesEnabled=") {
				n++
			}
		}
		if !slices.Contains(args, tt.want) || n != 1 {
			t.Errorf("%d options: JVM started with %q, want %s once", len(tt.opts), args, tt.want)
		}
	}
}
