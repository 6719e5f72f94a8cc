package zkharness

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// InstallHint is the command that installs ZooKeeper on Debian.
const InstallHint = "apt-get update && apt-get install -y zookeeper"

// ErrNoZooKeeper means neither $ZOOKEEPER_HOME nor Debian's zookeeper package
// was found.
var ErrNoZooKeeper = errors.New("ZooKeeper is not installed (set ZOOKEEPER_HOME, or run: " + InstallHint + ")")

// zooKeeper is how to run a server: java and its class path.
type zooKeeper struct {
	java      string
	classpath string
	jvmFlags  []string // set from the Server's or Ensemble's config
	launcher  []string // the command the java command line is given to (WithCPUs), if any
}

// findZooKeeper looks in $ZOOKEEPER_HOME (its jars and lib/*.jar), then at
// Debian's /usr/share/java/zookeeper.jar, whose manifest names its
// dependencies.
func findZooKeeper() (zooKeeper, error) {
	java, err := exec.LookPath("java")
	if err != nil {
		if home := os.Getenv("JAVA_HOME"); home != "" {
			java = filepath.Join(home, "bin", "java")
		}
		if _, serr := os.Stat(java); java == "" || serr != nil {
			return zooKeeper{}, fmt.Errorf("%w: no java on PATH", ErrNoZooKeeper)
		}
	}
	if home := os.Getenv("ZOOKEEPER_HOME"); home != "" {
		var jars []string
		for _, pattern := range []string{"*.jar", "lib/*.jar"} {
			m, _ := filepath.Glob(filepath.Join(home, pattern))
			jars = append(jars, m...)
		}
		if len(jars) == 0 {
			return zooKeeper{}, fmt.Errorf("%w: no jars in ZOOKEEPER_HOME=%s", ErrNoZooKeeper, home)
		}
		return zooKeeper{java: java, classpath: strings.Join(jars, string(os.PathListSeparator))}, nil
	}
	const debian = "/usr/share/java/zookeeper.jar"
	if _, err := os.Stat(debian); err != nil {
		return zooKeeper{}, ErrNoZooKeeper
	}
	return zooKeeper{java: java, classpath: debian}, nil
}

// command returns the command that runs a server with the config file cfg,
// its output going to logFile.
func (z zooKeeper) command(cfg string, logFile *os.File) *exec.Cmd {
	args := append(slices.Clone(z.jvmFlags),
		"-Dzookeeper.admin.enableServer=false",
		"-Dzookeeper.4lw.commands.whitelist=*",
		"-Dzookeeper.jmx.log4j.disable=true",
		"-cp", z.classpath,
		"org.apache.zookeeper.server.quorum.QuorumPeerMain", cfg)
	cmd := exec.Command(z.java, args...)
	if len(z.launcher) > 0 {
		cmd = exec.Command(z.launcher[0], append(append(slices.Clone(z.launcher[1:]), z.java), args...)...)
	}
	cmd.Stdout, cmd.Stderr = logFile, logFile
	return cmd
}
