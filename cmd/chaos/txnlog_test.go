package main

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/zkharness"
)

// The transaction log parser reads what a real server logged: a lock
// node's create, a fenced write, a refused one, a delete and the close of
// the session; and it agrees with ZooKeeper's own TxnLogToolkit on every
// entry's zxid, session and type.
func TestTxnLogParser(t *testing.T) {
	e, err := zkharness.StartEnsemble(1)
	if err != nil {
		t.Fatal(err)
	}
	defer e.Close()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := framework.New(e.ConnectString())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	session := int64(0)
	func() {
		defer c.Close()
		if err := c.BlockUntilConnected(ctx); err != nil {
			t.Fatal(err)
		}
		session = c.SessionID()
		if _, err := c.Create(ctx, "/chaos/log", nil, framework.WithParents()); err != nil {
			t.Fatal(err)
		}
		node, err := c.Create(ctx, "/chaos/lock/l-", []byte("w1.1"), framework.WithMode(framework.EphemeralSequential), framework.WithParents())
		if err != nil {
			t.Fatal(err)
		}
		res, err := c.Txn(ctx, framework.CheckOp(node, -1), framework.CreateOp("/chaos/log/e-", []byte("entry 1"), framework.PersistentSequential))
		if err != nil {
			t.Fatal(err)
		}
		_, err = c.Txn(ctx, framework.CheckOp("/chaos/lock/gone", -1), framework.CreateOp("/chaos/log/e-", []byte("entry 2"), framework.PersistentSequential))
		var te *framework.TxnError
		if !errors.As(err, &te) {
			t.Fatalf("refused Txn: %v, want a *TxnError", err)
		}
		if err := c.Delete(ctx, res[1].Path); err != nil {
			t.Fatal(err)
		}
	}()

	dir, err := e.DataDir(0)
	if err != nil {
		t.Fatal(err)
	}
	txns, err := readTxnLogs(dir)
	if err != nil {
		t.Fatal(err)
	}
	r := replayHistory(txns, "/chaos/lock", "/chaos/log")
	if len(r.locks) != 1 || r.locks[0].Owner != session || r.locks[0].Data != "w1.1" || r.locks[0].EndKind != endSession {
		t.Errorf("lock nodes %+v: want one, ephemeral to %#x, data w1.1, ended with the session", r.locks, session)
	}
	if len(r.entries) != 1 || r.entries[0].Data != "entry 1" || r.entries[0].Deleted == 0 || r.entries[0].DeletedBy != session {
		t.Errorf("entries %+v: want entry 1 only, deleted by %#x", r.entries, session)
	}
	refused := 0
	for _, tx := range txns {
		if tx.Type == txnMulti && len(tx.ops) == 2 && tx.ops[0].Type == txnError && tx.ops[1].Type == txnError {
			refused++
		}
	}
	if refused != 1 {
		t.Errorf("%d refused transactions logged, want 1", refused)
	}

	// ZooKeeper's own reading of the same files.
	java, err := exec.LookPath("java")
	if err != nil {
		t.Skip("no java on PATH")
	}
	files, _ := filepath.Glob(filepath.Join(dir, "version-2", "log.*"))
	var want []string
	line := regexp.MustCompile(`session (0x[0-9a-f]+) cxid 0x[0-9a-f]+ zxid (0x[0-9a-f]+) (\w+)`)
	for _, f := range files {
		out, err := exec.CommandContext(ctx, java, "-cp", "/usr/share/java/zookeeper.jar", "org.apache.zookeeper.server.persistence.TxnLogToolkit", "-d", f).CombinedOutput()
		if err != nil {
			t.Skipf("TxnLogToolkit: %v\n%s", err, out)
		}
		for _, m := range line.FindAllStringSubmatch(string(out), -1) {
			want = append(want, m[1]+" "+m[2]+" "+m[3])
		}
	}
	var got []string
	for _, tx := range txns {
		got = append(got, fmt.Sprintf("%#x %#x %s", tx.Session, tx.Zxid, typeName(tx.Type)))
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("parsed:\n%s\nTxnLogToolkit:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}

// typeName is TxnLogToolkit's name for a transaction type.
func typeName(typ int32) string {
	switch typ {
	case txnCreate:
		return "create"
	case txnCreate2:
		return "create2"
	case txnCreateContainer:
		return "createContainer"
	case txnDelete:
		return "delete"
	case txnMulti:
		return "multi"
	case txnCreateSession:
		return "createSession"
	case txnCloseSession:
		return "closeSession"
	case txnSetData:
		return "setData"
	case txnError:
		return "error"
	}
	return strconv.Itoa(int(typ))
}

// A log cut short by a kill ends at the last whole entry.
func TestTxnLogTornTail(t *testing.T) {
	head := []byte{0x5a, 0x4b, 0x4c, 0x47, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 0}
	if txns, err := parseTxnLog(append(head, 0, 0, 0, 0, 0, 1, 2, 3, 0, 0, 0, 40, 1, 2)); err != nil || len(txns) != 0 {
		t.Errorf("torn entry: %d txns, %v; want none, no error", len(txns), err)
	}
	if _, err := parseTxnLog([]byte("not a log at all")); err == nil {
		t.Error("a file without the magic parsed")
	}
}
