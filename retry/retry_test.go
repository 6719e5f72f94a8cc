package retry_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"os"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/gocurator/curator/framework"
	"github.com/gocurator/curator/internal/zkerr"
	"github.com/gocurator/curator/retry"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

func TestExponentialBackoffRetry(t *testing.T) {
	base := 10 * time.Millisecond
	p := retry.ExponentialBackoffRetry(base, 5)
	for n := 0; n < 5; n++ {
		for range 200 {
			sleep, ok := p.AllowRetry(n, 0)
			if !ok {
				t.Fatalf("retry %d refused", n)
			}
			if sleep < base || sleep >= base*time.Duration(int64(1)<<(n+1)) || sleep%base != 0 {
				t.Fatalf("retry %d slept %v, want a multiple of %v in [%v, %v)", n, sleep, base, base, base*time.Duration(int64(1)<<(n+1)))
			}
		}
	}
	if _, ok := p.AllowRetry(5, 0); ok {
		t.Fatal("retry beyond maxRetries allowed")
	}
	// maxRetries is capped at 29.
	capped := retry.ExponentialBackoffRetry(time.Nanosecond, 100)
	if _, ok := capped.AllowRetry(28, 0); !ok {
		t.Fatal("retry 28 refused")
	}
	if _, ok := capped.AllowRetry(29, 0); ok {
		t.Fatal("retry 29 allowed: maxRetries not capped at 29")
	}
}

func TestExponentialBackoffRetrySpreads(t *testing.T) {
	p := retry.ExponentialBackoffRetry(time.Millisecond, 10)
	seen := map[time.Duration]bool{}
	for range 500 {
		s, _ := p.AllowRetry(4, 0)
		seen[s] = true
	}
	if len(seen) < 10 {
		t.Fatalf("only %d distinct sleeps at retry 4: not randomised", len(seen))
	}
}

func TestBoundedSleeps(t *testing.T) {
	for _, p := range []retry.Policy{
		retry.BoundedExponentialBackoffRetry(time.Millisecond, 5*time.Millisecond, 20),
		retry.ExponentialBackoffRetryMaxSleep(time.Millisecond, 20, 5*time.Millisecond),
	} {
		for n := range 20 {
			if s, ok := p.AllowRetry(n, 0); !ok || s > 5*time.Millisecond || s < time.Millisecond {
				t.Fatalf("retry %d: sleep %v ok=%v, want in [1ms, 5ms]", n, s, ok)
			}
		}
	}
}

// Without a cap, a sleep is capped at Curator's default of Integer.MAX_VALUE
// milliseconds: a long base no longer overflows into a negative sleep.
func TestUncappedSleepsStayPositive(t *testing.T) {
	const curatorMax = math.MaxInt32 * time.Millisecond
	p := retry.ExponentialBackoffRetry(20*time.Second, 29)
	for range 200 {
		if s, ok := p.AllowRetry(28, 0); !ok || s < 20*time.Second || s > curatorMax {
			t.Fatalf("retry 28 at a 20 s base: sleep %v ok=%v, want in [20s, %v]", s, ok, curatorMax)
		}
	}
}

func TestFixedPolicies(t *testing.T) {
	tests := []struct {
		name    string
		p       retry.Policy
		retries int
		elapsed time.Duration
		ok      bool
	}{
		{"NTimes within", retry.RetryNTimes(3, time.Millisecond), 2, 0, true},
		{"NTimes done", retry.RetryNTimes(3, time.Millisecond), 3, 0, false},
		{"NTimes zero", retry.RetryNTimes(0, time.Millisecond), 0, 0, false},
		{"OneTime first", retry.RetryOneTime(time.Millisecond), 0, 0, true},
		{"OneTime second", retry.RetryOneTime(time.Millisecond), 1, 0, false},
		{"UntilElapsed within", retry.RetryUntilElapsed(time.Second, time.Millisecond), 100, 999 * time.Millisecond, true},
		{"UntilElapsed past", retry.RetryUntilElapsed(time.Second, time.Millisecond), 0, time.Second, false},
		{"Forever", retry.RetryForever(time.Millisecond), 1 << 20, time.Hour, true},
	}
	for _, tt := range tests {
		sleep, ok := tt.p.AllowRetry(tt.retries, tt.elapsed)
		if ok != tt.ok || (ok && sleep != time.Millisecond) {
			t.Errorf("%s: sleep=%v ok=%v, want ok=%v", tt.name, sleep, ok, tt.ok)
		}
	}
}

func TestIsRetryable(t *testing.T) {
	for _, tt := range []struct {
		err  error
		want bool
	}{
		{framework.ErrConnectionLoss, true},
		{zkerr.SessionMoved, true},
		{framework.ErrSessionExpired, true},
		{retry.ErrOperationTimeout, true},
		{fmt.Errorf("wrapped: %w", framework.ErrConnectionLoss), true},
		{framework.ErrClosed, false},
		{framework.ErrNoNode, false},
		{framework.ErrNodeExists, false},
		{zkerr.MarshallingError, false}, // a request too large to encode: sending it again cannot help
		{context.Canceled, false},
		{context.DeadlineExceeded, false}, // has net.Error's methods, but is the caller's
		{nil, false},
		// A network error of the connection, as a write to its socket fails.
		{&net.OpError{Op: "write", Net: "tcp", Err: os.NewSyscallError("write", syscall.EPIPE)}, true},
		{&net.OpError{Op: "read", Net: "tcp", Err: os.NewSyscallError("read", syscall.ECONNRESET)}, true},
		{os.ErrDeadlineExceeded, true}, // the connection's write deadline
		{io.EOF, true},
		{net.ErrClosed, true},
	} {
		if got := retry.IsRetryable(tt.err); got != tt.want {
			t.Errorf("IsRetryable(%v) = %v, want %v", tt.err, got, tt.want)
		}
	}
}

// counter is an op that fails with err its first `fails` calls.
func counter(fails int, err error) (func(context.Context) error, *int) {
	calls := 0
	return func(context.Context) error {
		calls++
		if calls <= fails {
			return err
		}
		return nil
	}, &calls
}

func TestDoRetriesOnlyRetryableErrors(t *testing.T) {
	ctx := context.Background()
	op, calls := counter(2, framework.ErrConnectionLoss)
	if err := retry.Do(ctx, retry.RetryNTimes(3, 0), op); err != nil || *calls != 3 {
		t.Fatalf("retryable: err=%v calls=%d, want nil after 3", err, *calls)
	}
	op, calls = counter(5, framework.ErrNoNode)
	if err := retry.Do(ctx, retry.RetryNTimes(3, 0), op); !errors.Is(err, framework.ErrNoNode) || *calls != 1 {
		t.Fatalf("not retryable: err=%v calls=%d, want ErrNoNode after 1", err, *calls)
	}
	op, calls = counter(10, framework.ErrConnectionLoss)
	if err := retry.Do(ctx, retry.RetryNTimes(3, 0), op); !errors.Is(err, framework.ErrConnectionLoss) || *calls != 4 {
		t.Fatalf("exhausted: err=%v calls=%d, want the last error after 4", err, *calls)
	}
	op, calls = counter(10, framework.ErrConnectionLoss)
	if err := retry.Do(ctx, nil, op); !errors.Is(err, framework.ErrConnectionLoss) || *calls != 1 {
		t.Fatalf("nil policy: err=%v calls=%d", err, *calls)
	}
}

func TestSessionFailedRetryPolicyRefusesExpiry(t *testing.T) {
	p := retry.SessionFailedRetryPolicy(retry.RetryNTimes(3, 0))
	op, calls := counter(10, fmt.Errorf("create: %w", framework.ErrSessionExpired))
	if err := retry.Do(context.Background(), p, op); !errors.Is(err, framework.ErrSessionExpired) || *calls != 1 {
		t.Fatalf("err=%v calls=%d, want expiry after 1 call", err, *calls)
	}
	op, calls = counter(2, framework.ErrConnectionLoss)
	if err := retry.Do(context.Background(), p, op); err != nil || *calls != 3 {
		t.Fatalf("other errors still retried: err=%v calls=%d", err, *calls)
	}
}

func TestNestedDoDoesNotMultiplyRetries(t *testing.T) {
	inner := 0
	err := retry.Do(context.Background(), retry.RetryNTimes(3, 0), func(ctx context.Context) error {
		return retry.Do(ctx, retry.RetryNTimes(3, 0), func(context.Context) error {
			inner++
			return framework.ErrConnectionLoss
		})
	})
	if !errors.Is(err, framework.ErrConnectionLoss) || inner != 4 {
		t.Fatalf("err=%v inner calls=%d, want 4 (1 + 3 outer retries)", err, inner)
	}
}

func TestDoStopsWhenContextEndsDuringSleep(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	attempted := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- retry.Do(ctx, retry.RetryForever(time.Hour), func(context.Context) error {
			close(attempted)
			return framework.ErrConnectionLoss
		})
	}()
	<-attempted
	cancel()
	err := <-done // an hour's sleep would hang the test here
	if !errors.Is(err, context.Canceled) || !errors.Is(err, framework.ErrConnectionLoss) {
		t.Fatalf("err=%v, want context.Canceled wrapping the last error", err)
	}
}

// Its owner stopping the loop ends a sleep at once, and the last error is
// returned as it was: the caller's context did not end.
func TestDoUntilStopsDuringSleep(t *testing.T) {
	stop, stopLoop := context.WithCancel(context.Background())
	attempts := 0
	attempted := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- retry.DoUntil(context.Background(), stop, retry.RetryForever(time.Hour), func(context.Context) error {
			if attempts++; attempts == 1 {
				close(attempted)
			}
			return framework.ErrConnectionLoss
		})
	}()
	<-attempted
	stopLoop()
	err := <-done // an hour's sleep would hang the test here
	if attempts != 1 || !errors.Is(err, framework.ErrConnectionLoss) || errors.Is(err, context.Canceled) {
		t.Fatalf("attempts=%d err=%v, want 1 attempt and the last error alone", attempts, err)
	}
}

// Stopped during an attempt, a loop without sleeps makes no other attempt:
// stop is seen before the next one, not only once the cancel it triggers
// has run.
func TestDoUntilMakesNoAttemptOnceStopped(t *testing.T) {
	for round := range 200 {
		stop, stopLoop := context.WithCancel(context.Background())
		calls := 0
		retry.DoUntil(context.Background(), stop, retry.RetryNTimes(5, 0), func(context.Context) error {
			if calls++; calls == 2 {
				stopLoop()
			}
			return framework.ErrConnectionLoss
		})
		stopLoop()
		if calls != 2 {
			t.Fatalf("round %d: %d attempts, want 2 (none after the one that stopped the loop)", round, calls)
		}
	}
}

// A loop stopped before its first attempt failed makes no other attempt
// and asks the policy nothing.
func TestDoUntilStoppedMakesOneAttempt(t *testing.T) {
	stop, stopLoop := context.WithCancel(context.Background())
	stopLoop()
	asked := 0
	p := retry.PolicyFunc(func(int, time.Duration) (time.Duration, bool) { asked++; return 0, true })
	op, calls := counter(10, framework.ErrConnectionLoss)
	err := retry.DoUntil(context.Background(), stop, p, op)
	if *calls != 1 || asked != 0 || !errors.Is(err, framework.ErrConnectionLoss) {
		t.Fatalf("calls=%d asked=%d err=%v, want 1 call, no ask, the op's error", *calls, asked, err)
	}
}

func TestDoWithDoneContextStillRunsOnce(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	op, calls := counter(10, framework.ErrConnectionLoss)
	err := retry.Do(ctx, retry.RetryForever(0), op)
	if *calls != 1 || !errors.Is(err, context.Canceled) {
		t.Fatalf("calls=%d err=%v", *calls, err)
	}
}

func TestDoCountsElapsedFromTheFirstAttempt(t *testing.T) {
	const firstTakes = 5 * time.Millisecond
	var seen []time.Duration
	p := retry.PolicyFunc(func(retries int, elapsed time.Duration) (time.Duration, bool) {
		seen = append(seen, elapsed)
		return 0, retries < 1
	})
	calls := 0
	err := retry.Do(context.Background(), p, func(context.Context) error {
		calls++
		if calls == 1 {
			time.Sleep(firstTakes) // time passes in the first attempt; not a synchronisation
		}
		return framework.ErrConnectionLoss
	})
	if !errors.Is(err, framework.ErrConnectionLoss) || calls != 2 || len(seen) != 2 {
		t.Fatalf("err=%v calls=%d policy asked %d times, want 2 calls and 2 asks", err, calls, len(seen))
	}
	if seen[0] < firstTakes {
		t.Fatalf("elapsed after the first attempt = %v, want at least the %v the attempt took", seen[0], firstTakes)
	}
}

func TestDoBuildsNoLoopWhenTheFirstAttemptSucceeds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	p := retry.ExponentialBackoffRetry(time.Millisecond, 3)
	op := func(context.Context) error { return nil }
	// One allocation, the context that marks op as inside a loop (two when
	// the compiler does not inline, as under a debugger); building the loop
	// took four.
	if n := testing.AllocsPerRun(100, func() { _ = retry.Do(ctx, p, op) }); n > 2 {
		t.Fatalf("Do allocated %v times for an attempt that succeeded, want at most 2", n)
	}
}

func TestDoAsksTheErrorFilterOncePerError(t *testing.T) {
	p := &countingFilter{Policy: retry.RetryNTimes(5, 0)}
	op, calls := counter(2, framework.ErrConnectionLoss)
	if err := retry.Do(context.Background(), p, op); err != nil || *calls != 3 {
		t.Fatalf("err=%v calls=%d, want nil after 3", err, *calls)
	}
	if p.asked != 2 {
		t.Fatalf("AllowRetryOn asked %d times for 2 errors", p.asked)
	}
}

// countingFilter is a policy whose ErrorFilter counts how often it is asked.
type countingFilter struct {
	retry.Policy
	asked int
}

func (f *countingFilter) AllowRetryOn(error) bool {
	f.asked++
	return true
}
