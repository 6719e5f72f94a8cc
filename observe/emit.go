package observe

// The methods below report an event to the hooks that hear it. Each does
// nothing on a nil *Hooks or one without such a hook, and never blocks.
// Recipes call them; a recipe of your own may too.

// emit queues one call of on per hook for e.
func emit[H any, E any](h *Hooks, hooks []entry[H], on func(H, E), e E) {
	if len(hooks) == 0 {
		return
	}
	h.post(func() {
		for _, x := range hooks {
			call(h, x, func() { on(x.hook, e) })
		}
	})
}

// Request reports a request.
func (h *Hooks) Request(e Request) {
	if h != nil {
		emit(h, h.request, RequestHook.OnRequest, e)
	}
}

// Operation reports an operation.
func (h *Hooks) Operation(e Operation) {
	if h != nil {
		emit(h, h.operation, OperationHook.OnOperation, e)
	}
}

// Retry reports a retry decision.
func (h *Hooks) Retry(e Retry) {
	if h != nil {
		emit(h, h.retry, RetryHook.OnRetry, e)
	}
}

// State reports a connection state change.
func (h *Hooks) State(e State) {
	if h != nil {
		emit(h, h.state, StateHook.OnState, e)
	}
}

// Acquire reports the end of an acquire.
func (h *Hooks) Acquire(e Acquire) {
	if h != nil {
		emit(h, h.lock, LockHook.OnAcquire, e)
	}
}

// Release reports a release.
func (h *Hooks) Release(e Release) {
	if h != nil {
		emit(h, h.lock, LockHook.OnRelease, e)
	}
}

// Loss reports a hold lost.
func (h *Hooks) Loss(e Loss) {
	if h != nil {
		emit(h, h.lock, LockHook.OnLoss, e)
	}
}

// TermStart reports the start of a leadership term.
func (h *Hooks) TermStart(e TermStart) {
	if h != nil {
		emit(h, h.leader, LeaderHook.OnTermStart, e)
	}
}

// TermEnd reports the end of a leadership term.
func (h *Hooks) TermEnd(e TermEnd) {
	if h != nil {
		emit(h, h.leader, LeaderHook.OnTermEnd, e)
	}
}

// CacheChange reports a cache's change.
func (h *Hooks) CacheChange(e CacheChange) {
	if h != nil {
		emit(h, h.cache, CacheHook.OnCacheChange, e)
	}
}

// CacheResync reports a cache's full read.
func (h *Hooks) CacheResync(e CacheResync) {
	if h != nil {
		emit(h, h.cache, CacheHook.OnCacheResync, e)
	}
}

// CacheStale reports a span a cache was stale.
func (h *Hooks) CacheStale(e CacheStale) {
	if h != nil {
		emit(h, h.cache, CacheHook.OnCacheStale, e)
	}
}

// CacheOverflow reports a listener that fell behind.
func (h *Hooks) CacheOverflow(e CacheOverflow) {
	if h != nil {
		emit(h, h.cache, CacheHook.OnCacheOverflow, e)
	}
}

// TrySet reports a compare-and-set.
func (h *Hooks) TrySet(e TrySet) {
	if h != nil {
		emit(h, h.shared, SharedHook.OnTrySet, e)
	}
}
