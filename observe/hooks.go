package observe

// RequestHook hears every request sent to ZooKeeper.
type RequestHook interface{ OnRequest(Request) }

// OperationHook hears every operation of a client.
type OperationHook interface{ OnOperation(Operation) }

// RetryHook hears every decision of a client's retry loop.
type RetryHook interface{ OnRetry(Retry) }

// StateHook hears every connection state change.
type StateHook interface{ OnState(State) }

// LockHook hears the locks' and semaphores' acquires, releases and losses.
type LockHook interface {
	OnAcquire(Acquire)
	OnRelease(Release)
	OnLoss(Loss)
}

// LeaderHook hears leadership terms begin and end.
type LeaderHook interface {
	OnTermStart(TermStart)
	OnTermEnd(TermEnd)
}

// CacheHook hears the caches' and watchers' changes, resyncs, stale spans
// and overflows.
type CacheHook interface {
	OnCacheChange(CacheChange)
	OnCacheResync(CacheResync)
	OnCacheStale(CacheStale)
	OnCacheOverflow(CacheOverflow)
}

// SharedHook hears shared values' and counters' compare-and-sets.
type SharedHook interface{ OnTrySet(TrySet) }
