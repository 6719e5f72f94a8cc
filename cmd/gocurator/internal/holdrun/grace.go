package holdrun

import "time"

// Grace returns the time between SIGTERM and SIGKILL when a hold of a
// session whose negotiated timeout is t is lost: t/6.
//
// Why t/6. go-zookeeper pings every t/3 and gives the connection up when
// nothing has arrived for 2t/3; the client is then Suspended, and under the
// Standard error policy the hold is lost at that moment. While a command
// runs, everything the holder receives answers something it sent (the only
// watch it keeps is on its own node, which fires only when the hold is
// lost anyway), so the last packet it received, at time r, answered a
// request that reached the server at some s ≤ r. The server expires a
// session t after the last packet it received from it: not before s + t.
// The loss comes at the latest at r + 2t/3, so at least t/3 − (r − s)
// before the server can delete the holder's node, where r − s is one reply's
// way back (milliseconds on a working network). A SIGKILL sent t/6 after the
// loss leaves the other t/6 for noticing the loss and sending the signal,
// and another waiter still needs the deletion's notice, a listing and a fork
// before its command starts.
//
// What no grace covers: a holder paused (SIGSTOP, a frozen VM) past its
// session, and a session that someone closes on the server; the fencing
// token is for those.
func Grace(t time.Duration) time.Duration { return t / 6 }
