package main

// The command line's step of the demo (issue 21), run when scripts/demo has
// built gocurator and named it in $GOCURATOR_BIN.

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/gocurator/curator/framework"
)

// cliDemo runs two `gocurator lock` processes on one lock: the second
// waits while the first holds, `gocurator holders` shows both, and the
// second runs once the first is done.
func cliDemo(ctx context.Context, client *framework.Client, connect, bin string) error {
	if bin == "" {
		return nil
	}
	fmt.Println("\n== the command line: two `gocurator lock` processes share /locks/cli ==")
	env := append(os.Environ(), "ZOOKEEPER_CONNECT="+connect, "GOCURATOR_NAMESPACE=demo")
	gocurator := func(args ...string) *exec.Cmd {
		fmt.Printf("$ gocurator %s\n", strings.Join(quoted(args), " "))
		cmd := exec.CommandContext(ctx, bin, args...)
		cmd.Env, cmd.Stderr = env, os.Stderr
		return cmd
	}
	first := gocurator("lock", "--id", "first", "/locks/cli", "--", "sh", "-c",
		`echo "  first holds /locks/cli (fencing token $GOCURATOR_FENCING_TOKEN)"; read -r _; echo "  first is done"`)
	release, err := first.StdinPipe()
	if err != nil {
		return err
	}
	out, err := first.StdoutPipe()
	if err != nil {
		return err
	}
	if err := first.Start(); err != nil {
		return err
	}
	lines := bufio.NewScanner(out)
	if !lines.Scan() { // the first line: it holds
		release.Close()
		first.Wait()
		return fmt.Errorf("the first gocurator printed nothing")
	}
	fmt.Println(lines.Text())
	second := gocurator("lock", "--id", "second", "/locks/cli", "--", "sh", "-c",
		`echo "  second holds /locks/cli (fencing token $GOCURATOR_FENCING_TOKEN)"`)
	second.Stdout = os.Stdout
	if err := second.Start(); err != nil {
		release.Close()
		first.Wait()
		return err
	}
	for { // until the second waits in the queue
		kids, _, err := client.Children(ctx, "/locks/cli")
		if err != nil || len(kids) >= 2 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	holders := gocurator("holders", "/locks/cli")
	holders.Stdout = os.Stdout
	holders.Run()
	fmt.Println("(the first's command ends)")
	release.Close()
	for lines.Scan() {
		fmt.Println(lines.Text())
	}
	if err := first.Wait(); err != nil {
		return err
	}
	if err := second.Wait(); err != nil {
		return err
	}
	fmt.Println("both exited 0; done.")
	return nil
}

// quoted quotes the arguments a shell would need quoted.
func quoted(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if strings.ContainsAny(a, " \"'$;") {
			out[i] = "'" + strings.ReplaceAll(a, "'", `'\''`) + "'"
		}
	}
	return out
}
