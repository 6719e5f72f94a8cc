package supervise

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"syscall"
	"testing"
)

// helperEnv makes the test binary a supervisor that starts `sleep 1000`,
// prints its process id and waits to be killed.
const helperEnv = "SUPERVISE_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "supervisor" {
		sleep, err := exec.LookPath("sleep")
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		g, err := Start(Command{Path: sleep, Args: []string{"sleep", "1000"}})
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println(g.Pid())
		g.Supervise(Watch{})
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// The command dies with its supervisor, even one killed with SIGKILL.
func TestCommandDiesWithTheSupervisor(t *testing.T) {
	becomeSubreaper() // the orphaned command comes to this process, which can wait for it
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), helperEnv+"=supervisor")
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("the helper printed no process id: %v", err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	cmd.Process.Kill()
	cmd.Wait()
	var ws syscall.WaitStatus
	for {
		_, err = syscall.Wait4(pid, &ws, 0, nil)
		if err != syscall.EINTR {
			break
		}
	}
	if err != nil {
		syscall.Kill(pid, syscall.SIGKILL)
		t.Fatalf("waiting for the command %d: %v", pid, err)
	}
	if !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Fatalf("the command ended with %v, want SIGKILL", statusOf(ws))
	}
}
