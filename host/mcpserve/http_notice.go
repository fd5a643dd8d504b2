package mcpserve

import (
	"bytes"
	"context"
	"net/http"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
)

// noticeWait bounds how long a handler waits for its notification to be
// written (a client whose POSTs cannot stream and that keeps no GET
// stream never gets it written).
const noticeWait = 2 * time.Second

var listChangedOnWire = []byte(`"` + string(mcp.MethodNotificationToolsListChanged) + `"`)

// noticeCounter counts the tools/list_changed notifications written on
// any stream of one client session.
type noticeCounter struct {
	mu      sync.Mutex
	users   int // requests of the session in flight, under noticeCounters.mu
	written uint64
	wake    chan struct{} // closed, and replaced, at each write
}

func newNoticeCounter() *noticeCounter { return &noticeCounter{wake: make(chan struct{})} }

func (c *noticeCounter) seen() {
	c.mu.Lock()
	c.written++
	close(c.wake)
	c.wake = make(chan struct{})
	c.mu.Unlock()
}

func (c *noticeCounter) count() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.written
}

// waitPast waits until more than n were written, or d passed.
func (c *noticeCounter) waitPast(ctx context.Context, n uint64, d time.Duration) {
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	for {
		c.mu.Lock()
		written, wake := c.written, c.wake
		c.mu.Unlock()
		if written > n {
			return
		}
		select {
		case <-wake:
		case <-deadline.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// noticeCounters holds a counter per session while any request of the
// session is in flight, so nothing is kept for a session that is gone.
type noticeCounters struct {
	mu sync.Mutex
	by map[string]*noticeCounter
}

// acquire is the counter of session id ("" a request of its own: the
// stateless revision has no session, and its POST is its only stream).
func (cs *noticeCounters) acquire(id string) (*noticeCounter, func()) {
	if id == "" {
		return newNoticeCounter(), func() {}
	}
	cs.mu.Lock()
	defer cs.mu.Unlock()
	if cs.by == nil {
		cs.by = map[string]*noticeCounter{}
	}
	c := cs.by[id]
	if c == nil {
		c = newNoticeCounter()
		cs.by[id] = c
	}
	c.users++
	return c, func() {
		cs.mu.Lock()
		defer cs.mu.Unlock()
		if c.users--; c.users == 0 {
			delete(cs.by, id)
		}
	}
}

// noticeWriter counts the list_changed notifications written through it.
// mcp-go writes an SSE event in one Write.
type noticeWriter struct {
	http.ResponseWriter
	c *noticeCounter
}

func (w noticeWriter) Write(b []byte) (int, error) {
	n, err := w.ResponseWriter.Write(b)
	if err == nil && bytes.Contains(b, listChangedOnWire) {
		w.c.seen()
	}
	return n, err
}

func (w noticeWriter) Flush() {
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w noticeWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

type noticeKey struct{}

// overHTTP reports whether a request came through the HTTP endpoint (each
// of its requests carries a notice counter), where stateless clients
// cannot be told apart; over stdio there is one.
func overHTTP(ctx context.Context) bool { return ctx.Value(noticeKey{}) != nil }

// withNotices counts what the request's response carries, for a handler
// of the request to wait on.
func (cs *noticeCounters) withNotices(w http.ResponseWriter, r *http.Request) (http.ResponseWriter, *http.Request, func()) {
	c, release := cs.acquire(r.Header.Get("Mcp-Session-Id"))
	return noticeWriter{w, c}, r.WithContext(context.WithValue(r.Context(), noticeKey{}, c)), release
}

// notifyListChanged tells the calling client its tools/list changed. Over
// HTTP it waits until a stream of the client's session wrote the notice:
// mcp-go v1.2.1 drops a notification its request's forwarder took off the
// session's channel when the request ended first (mark3labs/mcp-go#969),
// and while this handler waits its request cannot end.
func (s *Server) notifyListChanged(ctx context.Context) {
	c, _ := ctx.Value(noticeKey{}).(*noticeCounter)
	var before uint64
	if c != nil {
		before = c.count()
	}
	if err := s.mcp.SendNotificationToClient(ctx, string(mcp.MethodNotificationToolsListChanged), nil); err != nil || c == nil {
		return
	}
	c.waitPast(ctx, before, noticeWait)
}
