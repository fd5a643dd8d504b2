package providertest

import (
	"encoding/json"
	"fmt"
	"net/http"
)

// sse writes server-sent events, flushing each one.
type sse struct {
	w       http.ResponseWriter
	r       *http.Request
	delayMS int
	started bool
	gone    bool
	// malformedEvent names the event a malformed line is sent as: a
	// client may skip events of no or unknown name unread.
	malformedEvent string
}

func newSSE(w http.ResponseWriter, r *http.Request, delayMS int) *sse {
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-cache")
	w.WriteHeader(http.StatusOK)
	return &sse{w: w, r: r, delayMS: delayMS}
}

// event sends one event (name may be empty) whose data is v as JSON.
func (e *sse) event(name string, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	e.raw(name, string(b))
}

// raw sends one event with data as given.
func (e *sse) raw(name, data string) {
	if e.gone {
		return
	}
	if e.started && !sleep(e.r, e.delayMS) {
		e.gone = true
		return
	}
	e.started = true
	if name != "" {
		fmt.Fprintf(e.w, "event: %s\n", name)
	}
	fmt.Fprintf(e.w, "data: %s\n\n", data)
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

// block sends one SSE block verbatim (its lines as given, then the blank
// line that ends it).
func (e *sse) block(text string) {
	if e.gone {
		return
	}
	if e.started && !sleep(e.r, e.delayMS) {
		e.gone = true
		return
	}
	e.started = true
	fmt.Fprintf(e.w, "%s\n\n", text)
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
}

// malformed sends a data line that is not JSON.
func (e *sse) malformed(name string) {
	e.raw(name, `{"this is": not json`)
}

// drop aborts the connection: the client sees the stream cut, with no
// terminal chunk.
func (e *sse) drop() {
	if f, ok := e.w.(http.Flusher); ok {
		f.Flush()
	}
	panic(http.ErrAbortHandler)
}

// interrupted says whether the step ends early after its text, and does
// so: drop, malformed or an in-stream error. The error event is the
// format's own, written by errEvent.
func (e *sse) interrupted(s Step, errEvent func(StreamError)) bool {
	switch {
	case s.Drop:
		e.drop()
	case s.Cut:
		// The response ends cleanly, its terminal events never sent.
	case s.Malformed:
		e.malformed(e.malformedEvent)
	case s.StreamError != nil:
		errEvent(*s.StreamError)
	default:
		return false
	}
	return true
}
