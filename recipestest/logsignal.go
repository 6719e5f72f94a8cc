package recipestest

import (
	"context"
	"log/slog"
	"strings"
	"sync"
)

// LogSignal returns a logger for a client or recipe under test, and a
// channel closed the first time it logs a message containing text: an
// event a test can wait for when nothing but a log line announces it (a
// connection attempt failed, a read will be made again).
func LogSignal(text string) (*slog.Logger, <-chan struct{}) {
	h := &signalHandler{contains: text, seen: make(chan struct{})}
	return slog.New(h), h.seen
}

type signalHandler struct {
	contains string
	once     sync.Once
	seen     chan struct{}
}

func (h *signalHandler) Enabled(context.Context, slog.Level) bool { return true }

func (h *signalHandler) Handle(_ context.Context, r slog.Record) error {
	if strings.Contains(r.Message, h.contains) {
		h.once.Do(func() { close(h.seen) })
	}
	return nil
}

func (h *signalHandler) WithAttrs([]slog.Attr) slog.Handler { return h }
func (h *signalHandler) WithGroup(string) slog.Handler      { return h }
