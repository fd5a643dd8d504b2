package providertest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sort"
	"strings"
	"sync"
	"time"
)

// Kinds of server, one per wire format.
const (
	KindOpenAI          = "openai"           // Chat Completions: POST …/chat/completions
	KindOpenAIResponses = "openai-responses" // Responses API: POST …/responses
	KindAnthropic       = "anthropic"        // Messages: POST …/v1/messages
	KindGemini          = "gemini"           // POST …/models/NAME:streamGenerateContent?alt=sse
)

// Kinds lists the kinds NewServer takes ("openai-compatible" is an alias
// of "openai").
var Kinds = []string{KindOpenAI, KindOpenAIResponses, KindAnthropic, KindGemini}

// maxRequestBody bounds what a request body may be; more is refused.
const maxRequestBody = 32 << 20

// Request is one request the server got.
type Request struct {
	Method string          `json:"method"`
	Path   string          `json:"path"`
	Query  string          `json:"query,omitempty"`
	Header http.Header     `json:"header"`
	Body   json.RawMessage `json:"body"`
}

// Server is a scripted provider on loopback.
type Server struct {
	URL  string
	kind string
	srv  *httptest.Server

	mu       sync.Mutex
	steps    []Step
	next     int
	requests []Request
	// onRequest, when set, sees each request as it is recorded.
	onRequest func(Request)
	// repeat answers requests past the script with its last step.
	repeat bool
	// arrived is closed and replaced at each request (WaitRequests).
	arrived chan struct{}
	// used marks the consumed steps of a routed script (route.go).
	used []bool
}

// NewServer starts a server of the kind (see Kinds) answering the script.
// An unknown kind panics: it is a test's own mistake.
func NewServer(kind string, script []Step) *Server {
	s, err := newServer(kind, script)
	if err != nil {
		panic(err)
	}
	s.srv.Start()
	s.URL = s.srv.URL
	return s
}

func newServer(kind string, script []Step) (*Server, error) {
	if kind == "openai-compatible" {
		kind = KindOpenAI
	}
	known := false
	for _, k := range Kinds {
		known = known || k == kind
	}
	if !known {
		return nil, fmt.Errorf("providertest: unknown kind %q (known: %s)", kind, strings.Join(Kinds, ", "))
	}
	s := &Server{kind: kind, steps: append([]Step(nil), script...), arrived: make(chan struct{})}
	s.srv = httptest.NewUnstartedServer(http.HandlerFunc(s.serve))
	return s, nil
}

// Kind is the wire format the server speaks.
func (s *Server) Kind() string { return s.kind }

// Close stops the server, cutting open streams.
func (s *Server) Close() {
	s.srv.CloseClientConnections()
	s.srv.Close()
}

// RepeatLast makes the server answer every request past the script with
// its last step (benchmarks, a model that always says the same).
func (s *Server) RepeatLast() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.repeat = true
}

// Push appends steps to the script.
func (s *Server) Push(steps ...Step) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.steps = append(s.steps, steps...)
}

// Requests is a copy of the requests received so far, in order.
func (s *Server) Requests() []Request {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]Request(nil), s.requests...)
}

// WaitRequests waits until the server has received n requests, or ctx
// ends (its error is returned then).
func (s *Server) WaitRequests(ctx context.Context, n int) error {
	for {
		s.mu.Lock()
		got, ch := len(s.requests), s.arrived
		s.mu.Unlock()
		if got >= n {
			return nil
		}
		select {
		case <-ch:
		case <-ctx.Done():
			return fmt.Errorf("providertest: %d of %d requests arrived: %w", got, n, ctx.Err())
		}
	}
}

// Remaining is how many script steps no request has consumed yet.
func (s *Server) Remaining() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.routed() {
		n := 0
		for i := range s.steps {
			if !s.used[i] {
				n++
			}
		}
		return n
	}
	return len(s.steps) - s.next
}

func (s *Server) serve(w http.ResponseWriter, r *http.Request) {
	body, err := io.ReadAll(io.LimitReader(r.Body, maxRequestBody+1))
	if err != nil || len(body) > maxRequestBody {
		s.writeError(w, ErrorReply{Status: http.StatusRequestEntityTooLarge, Message: "providertest: request body unreadable or too large"}, r)
		return
	}
	if !s.pathMatches(r) {
		s.writeError(w, ErrorReply{Status: http.StatusNotFound, Type: "not_found_error",
			Message: fmt.Sprintf("providertest: this server speaks %s; no route %s %s", s.kind, r.Method, r.URL.Path)}, r)
		return
	}
	req := Request{Method: r.Method, Path: r.URL.Path, Query: r.URL.RawQuery, Header: r.Header.Clone(), Body: json.RawMessage(body)}
	if !json.Valid(body) {
		req.Body, _ = json.Marshal(string(body))
	}
	s.mu.Lock()
	s.requests = append(s.requests, req)
	close(s.arrived)
	s.arrived = make(chan struct{})
	hook := s.onRequest
	n := s.next
	var step Step
	ok := n < len(s.steps)
	if s.routed() {
		step, ok = s.route(body)
	} else if ok {
		step = s.steps[n]
		s.next++
	} else if s.repeat && len(s.steps) > 0 {
		step, ok = s.steps[len(s.steps)-1], true
	}
	s.mu.Unlock()
	if hook != nil {
		hook(req)
	}
	if !ok {
		s.writeError(w, ErrorReply{Status: http.StatusBadRequest, Type: "invalid_request_error",
			Message: fmt.Sprintf("providertest: the script has %d steps and this is request %d", n, n+1)}, r)
		return
	}
	if !sleep(r, step.DelayMS) {
		return
	}
	switch {
	case step.Error != nil:
		s.writeError(w, *step.Error, r)
		return
	case step.Raw != nil:
		ct := step.Raw.ContentType
		if ct == "" {
			ct = "text/plain"
		}
		w.Header().Set("Content-Type", ct)
		w.WriteHeader(step.Raw.Status)
		io.WriteString(w, step.Raw.Body)
		return
	}
	e := newSSE(w, r, step.ChunkDelayMS)
	if step.Events != nil {
		for _, ev := range step.Events {
			e.block(ev)
		}
		return
	}
	switch s.kind {
	case KindOpenAI:
		writeChat(e, step, model(body))
	case KindOpenAIResponses:
		writeResponses(e, step, model(body), includes(body, "reasoning.encrypted_content"))
	case KindAnthropic:
		writeAnthropic(e, step, model(body))
	case KindGemini:
		writeGemini(e, step)
	}
}

func (s *Server) pathMatches(r *http.Request) bool {
	if r.Method != http.MethodPost {
		return false
	}
	p := r.URL.Path
	switch s.kind {
	case KindOpenAI:
		return strings.HasSuffix(p, "/chat/completions")
	case KindOpenAIResponses:
		return strings.HasSuffix(p, "/responses")
	case KindAnthropic:
		return strings.HasSuffix(p, "/v1/messages")
	case KindGemini:
		return strings.Contains(p, "/models/") && strings.HasSuffix(p, ":streamGenerateContent")
	}
	return false
}

// writeError answers with the provider's error body shape.
func (s *Server) writeError(w http.ResponseWriter, e ErrorReply, r *http.Request) {
	for k, v := range e.Headers {
		w.Header().Set(k, v)
	}
	msg := e.Message
	if e.EchoHeaders {
		msg += " (request headers: " + headerText(r.Header) + ")"
	}
	body := e.Body
	if body == "" {
		body = s.errorBody(e.Status, e.Type, msg)
	}
	if w.Header().Get("Content-Type") == "" {
		w.Header().Set("Content-Type", "application/json")
	}
	w.WriteHeader(e.Status)
	io.WriteString(w, body)
}

func (s *Server) errorBody(status int, typ, msg string) string {
	var v any
	switch s.kind {
	case KindAnthropic:
		if typ == "" {
			typ = "api_error"
		}
		v = map[string]any{"type": "error", "error": map[string]any{"type": typ, "message": msg}}
	case KindGemini:
		if typ == "" {
			typ = "INTERNAL"
		}
		v = map[string]any{"error": map[string]any{"code": status, "message": msg, "status": typ}}
	default:
		if typ == "" {
			typ = "server_error"
		}
		v = map[string]any{"error": map[string]any{"message": msg, "type": typ, "param": nil, "code": typ}}
	}
	b, _ := json.Marshal(v)
	return string(b)
}

func headerText(h http.Header) string {
	keys := make([]string, 0, len(h))
	for k := range h {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s: %s; ", k, strings.Join(h[k], ","))
	}
	return b.String()
}

// model is the request's "model" field, echoed in replies.
func model(body []byte) string {
	var v struct {
		Model string `json:"model"`
	}
	_ = json.Unmarshal(body, &v)
	if v.Model == "" {
		return "providertest"
	}
	return v.Model
}

// includes says whether the request's include list names what.
func includes(body []byte, what string) bool {
	var v struct {
		Include []string `json:"include"`
	}
	_ = json.Unmarshal(body, &v)
	for _, s := range v.Include {
		if s == what {
			return true
		}
	}
	return false
}

// sleep waits ms unless the client goes away; false when it went.
func sleep(r *http.Request, ms int) bool {
	if ms <= 0 {
		return true
	}
	t := time.NewTimer(time.Duration(ms) * time.Millisecond)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-r.Context().Done():
		return false
	}
}
