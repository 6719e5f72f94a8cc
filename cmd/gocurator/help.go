package main

// The help texts: gocurator --help, and COMMAND --help for each command.
// docs/cli.md says the same at length.

const overviewHelp = `gocurator runs a program under a ZooKeeper lock, semaphore or leader
election, on Apache Curator's wire format (a shell job and a Java service
using Curator can share one lock).

Usage:
  gocurator lock    [flags] PATH -- COMMAND [ARG...]   run COMMAND holding a lock
  gocurator elect   [flags] PATH -- COMMAND [ARG...]   run COMMAND while leading
  gocurator leader  [flags] PATH                       print the leader
  gocurator holders [flags] PATH                       list who holds and who waits
  gocurator register [flags] BASEPATH NAME -- COMMAND [ARG...]
                                                       run COMMAND registered as an
                                                       instance of service NAME
  gocurator instances [flags] BASEPATH [NAME]          list services, or NAME's instances
  gocurator help COMMAND                               help for COMMAND

Examples:
  gocurator lock /jobs/nightly-report -- ./report.sh
  gocurator lock --shared 3 --timeout 10m /jobs/migrate -- ./migrate.sh
  gocurator elect --requeue /services/scheduler -- ./scheduler
  gocurator leader --watch /services/scheduler
  gocurator holders /jobs/nightly-report
  gocurator register --port 8080 /services orders -- ./orders-server
  gocurator instances /services orders

The connection comes from flags or the environment: ZOOKEEPER_CONNECT
("host:port,host:port/chroot"), GOCURATOR_NAMESPACE,
GOCURATOR_SESSION_TIMEOUT, GOCURATOR_DIGEST ("user:password", from the
environment, or from a file with --digest-file), GOCURATOR_ACL, and
GOCURATOR_TLS_CA, _CERT and _KEY (PEM files for TLS).
See docs/cli.md.
`

const connectionHelp = `
Connection flags (each overrides its environment variable):
  --connect HOSTS          servers, "host:port,host:port[/chroot]"
                           ($ZOOKEEPER_CONNECT, else 127.0.0.1:2181)
  --namespace NS           put every path under /NS ($GOCURATOR_NAMESPACE)
  --session-timeout D      session timeout to ask for
                           ($GOCURATOR_SESSION_TIMEOUT, else 30s)
  --connect-timeout D      give up connecting after D (15s)
  --verbose                log the client's work to standard error
  --tls                    speak TLS (give ZooKeeper's secureClientPort), with
                           the system's roots unless --tls-ca says otherwise
                           ($GOCURATOR_TLS=true)
  --tls-ca FILE            PEM certificates that verify the servers; implies
                           --tls ($GOCURATOR_TLS_CA)
  --tls-cert FILE          PEM client certificate for a server that asks for
                           one (ssl.clientAuth), with --tls-key; implies --tls
                           ($GOCURATOR_TLS_CERT)
  --tls-key FILE           the client certificate's PEM private key
                           ($GOCURATOR_TLS_KEY)
  $GOCURATOR_DIGEST        "user:password" for digest authentication; from
                           the environment or a file, never from a flag
  --digest-file FILE       read "user:password" from FILE, or with "-" from
                           the first line of standard input (the rest is
                           left to the command) ($GOCURATOR_DIGEST_FILE)
  --acl MODE               the ACL of the nodes gocurator creates: open
                           (anyone may do anything), creator (only the
                           digest's identity may change or delete them,
                           anyone may read) or creator-only (nobody else may
                           even read); default creator with a digest, open
                           without ($GOCURATOR_ACL)
`

const runHelp = `
The command runs in a process group of its own. Signals gocurator receives
(INT, TERM, HUP, QUIT, USR1, USR2) are passed on to the whole group. When
the command exits, anything it left running in its group gets SIGTERM (then
SIGKILL) before the lock is released. If the lock or leadership is lost
while the command runs (the connection is suspended, the session expires,
the node is deleted), the group gets SIGTERM at once and SIGKILL after a
grace period of a sixth of the negotiated session timeout, so that it is dead
before the server can let another holder in.

The command's environment has:
  GOCURATOR_PATH           PATH
  GOCURATOR_NODE           the hold's node (in the namespace)
  GOCURATOR_SESSION_ID     the session that owns it, 0x-prefixed hex
  GOCURATOR_FENCING_TOKEN  the zxid that created it: larger for every new
                           holder; give it to what the command writes to
  ZOOKEEPER_CONNECT, GOCURATOR_NAMESPACE  where PATH is
  GOCURATOR_TLS, GOCURATOR_TLS_CA, _CERT, _KEY  how gocurator connected
                           ("true" over TLS, and the PEM files)

Exit status:
  the command's own (128+N if signal N killed it)
  2    bad usage: flags, path, connect string, no "--" (nothing was sent)
  121  gocurator failed: cannot connect, credentials refused, request failed
  122  lost while the command ran (it was stopped), or before the release
  124  not acquired within --timeout (the command did not run); for lock
       --timeout 0, the lock was busy
  126  the command cannot be run; 127: not found
  128+N  a signal N stopped gocurator before the command started
`

// helpText returns cmd's help.
func helpText(cmd string) (string, bool) {
	switch cmd {
	case "lock":
		return lockHelp, true
	case "elect":
		return electHelp, true
	case "leader":
		return leaderHelp, true
	case "holders":
		return holdersHelp, true
	case "register":
		return registerHelp, true
	case "instances":
		return instancesHelp, true
	}
	return "", false
}

const lockHelp = `Usage: gocurator lock [flags] PATH -- COMMAND [ARG...]

Takes the lock at PATH, runs COMMAND, and releases the lock when COMMAND
and everything it left in its process group have ended. The lock is
Curator's InterProcessMutex (or, with --shared, InterProcessSemaphoreV2; with
--read or --write, a side of InterProcessReadWriteLock): Java processes using
Curator on the same PATH exclude gocurator and are excluded by it.

On a terminal, while the lock is busy, gocurator lock says who holds it
(as gocurator holders does: id, session, when it queued) and says again
when the holder changes, then when it has the lock. When standard error is
not a terminal (a script, a log), it says nothing unless it fails.

Flags:
  --timeout D   give up (exit 124) if the lock is not had within D; 0
                tries once (exit 124 if it is busy, saying who holds it);
                forever, the default, waits for ever
  --shared N    a semaphore: at most N holders at once
  --read        the read side of a read-write lock: readers share it
  --write       the write side: one writer, and no reader
  --id ID       the participant's id, the data of its node, which
                gocurator holders and Curator show (default host:pid)
` + connectionHelp + runHelp + `
Examples:
  # run the nightly report on one host at a time
  gocurator lock /jobs/nightly-report -- ./report.sh --date today

  # at most three migrations at once; give up after ten minutes
  gocurator lock --shared 3 --timeout 10m /jobs/migrate -- ./migrate.sh

  # run only if nobody else is running it now (a cron job that may overlap)
  gocurator lock --timeout 0 /jobs/sync -- ./sync.sh || [ $? -eq 124 ]

  # readers share, writers are alone
  gocurator lock --read  /data/catalog -- ./export-catalog
  gocurator lock --write /data/catalog -- ./rebuild-catalog

  # hand the fencing token to what the command writes to
  gocurator lock /jobs/export -- sh -c './export --fence "$GOCURATOR_FENCING_TOKEN"'
`

const electHelp = `Usage: gocurator elect [flags] PATH -- COMMAND [ARG...]

Joins the leader election at PATH and runs COMMAND while this process
leads. Without --requeue gocurator exits when COMMAND does (with its status),
leaving the election. The election is Curator's LeaderSelector: Java
participants using Curator on the same PATH take part in it.

Flags:
  --requeue     after COMMAND ends, or the leadership is lost, join the
                election again and run COMMAND again when leading; only a
                terminating signal (INT, TERM, HUP, QUIT) ends gocurator
  --timeout D   give up (exit 124) if not leading within D; forever, the
                default, waits for ever (0 is refused: an election has no
                single try)
  --id ID       the participant's id, its node's data, which gocurator
                leader prints (default host:pid)
` + connectionHelp + runHelp + `
Examples:
  # keep one scheduler active among all hosts
  gocurator elect --requeue --id "$(hostname)" /services/scheduler -- ./scheduler

  # run a job on whichever host wins, once
  gocurator elect /jobs/rebalance -- ./rebalance.sh
`

const leaderHelp = `Usage: gocurator leader [flags] PATH

Prints the id of the leader of the election at PATH (a LeaderSelector's or
a LeaderLatch's, Curator's or gocurator elect's). With --watch, prints the
leader and then each new one, one line each (an empty line: no leader),
until interrupted. An id (or node) that is not printable text without
spaces is printed quoted, as a Go string literal ("a b", "\x1b[2K"): ids
are data anyone who joins the election chooses.

Flags:
  --watch       print each change of leader
  --node        print the leader's node instead of its id
` + connectionHelp + `
Exit status: 0; 1 if the election has no leader (without --watch);
2 bad usage; 121 gocurator failed.

Examples:
  gocurator leader /services/scheduler
  gocurator leader --watch /services/scheduler | while read -r id; do echo "leader: $id"; done
`

const holdersHelp = `Usage: gocurator holders [flags] PATH

Lists the participants of the lock, semaphore or election at PATH: who
holds and who waits, with each one's id (its node's data), session, and age
(from the node's creation time, by the server's clock). Holders come first,
then waiters in queue order. Prints nothing if there are none.

Columns: STATE (holds, waits), KIND (lock, read, write, lease, latch),
AGE, SESSION, ID, NODE (relative to PATH). An ID or NODE that is not
printable text without spaces is shown quoted, as a Go string literal.

Flags:
  --shared N    the semaphore's number of leases: lease nodes beyond the
                first N are shown as waiting
` + connectionHelp + `
Exit status: 0; 2 bad usage; 121 gocurator failed.

Examples:
  gocurator holders /jobs/nightly-report
  gocurator holders --shared 3 /jobs/migrate
`
