package zkharness

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"time"
)

// startTimeout bounds how long a server may take to answer after its JVM
// starts.
const startTimeout = 60 * time.Second

// process is one running ZooKeeper JVM. It starts no goroutine: stop waits
// for the JVM itself.
type process struct {
	cmd *exec.Cmd
	log *os.File
}

func startProcess(zkp zooKeeper, cfg, logPath string) (*process, error) {
	log, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return nil, err
	}
	cmd := zkp.command(cfg, log)
	cmd.SysProcAttr = jvmProcAttr()
	if err := cmd.Start(); err != nil {
		log.Close()
		return nil, err
	}
	return &process{cmd: cmd, log: log}, nil
}

// stop ends the JVM with sig and waits for it; where sig cannot be sent
// (Windows sends only a kill), it kills the JVM.
func (p *process) stop(sig syscall.Signal) {
	if err := p.cmd.Process.Signal(sig); err != nil && !errors.Is(err, os.ErrProcessDone) {
		_ = p.cmd.Process.Kill()
	}
	t := time.AfterFunc(20*time.Second, func() { _ = p.cmd.Process.Kill() }) // a graceful stop that hangs
	_ = p.cmd.Wait()
	t.Stop()
	p.log.Close()
}

// FourLetter sends a four-letter-word command ("srvr", "mntr", "cons", ...)
// to the server at addr and returns its answer.
func FourLetter(ctx context.Context, addr, cmd string) (string, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return "", err
	}
	defer c.Close()
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(10 * time.Second)
	}
	c.SetDeadline(deadline)
	if _, err := io.WriteString(c, cmd); err != nil {
		return "", err
	}
	b, err := io.ReadAll(c)
	return string(b), err
}

// mode returns the "Mode:" line of srvr (standalone, leader, follower), or
// an error while the server cannot serve.
func mode(ctx context.Context, addr string) (string, error) {
	out, err := FourLetter(ctx, addr, "srvr")
	if err != nil {
		return "", err
	}
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		if m, ok := strings.CutPrefix(sc.Text(), "Mode: "); ok {
			return strings.TrimSpace(m), nil
		}
	}
	return "", fmt.Errorf("recipestest: %s not serving: %q", addr, strings.TrimSpace(out))
}

// waitServing polls srvr until the server at addr serves, p dies, or the
// start timeout passes.
func waitServing(p *process, addr, logPath string) error {
	deadline := time.Now().Add(startTimeout)
	for {
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_, err := mode(ctx, addr)
		cancel()
		if err == nil {
			return nil
		}
		if p.exited() || time.Now().After(deadline) {
			return fmt.Errorf("recipestest: ZooKeeper at %s did not start (%v); log %s:\n%s", addr, err, logPath, tail(logPath, 20))
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// tail returns the last n lines of a file.
func tail(path string, n int) string {
	b, _ := os.ReadFile(path)
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// freePorts returns n distinct free TCP ports on 127.0.0.1.
func freePorts(n int) ([]int, error) {
	var ls []net.Listener
	defer func() {
		for _, l := range ls {
			l.Close()
		}
	}()
	ports := make([]int, n)
	for i := range ports {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, err
		}
		ls = append(ls, l)
		ports[i] = l.Addr().(*net.TCPAddr).Port
	}
	return ports, nil
}
