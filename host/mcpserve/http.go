package mcpserve

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"demiurge.dev/catalog/jsonscan"
	"demiurge.dev/host/mcpserve/mcpbind"
)

// HTTPOptions bound the streamable HTTP endpoint.
type HTTPOptions struct {
	// Token is the bearer token every request must carry.
	Token string
	// Public allows a bind address other than loopback.
	Public bool
	// Origins are the browser origins allowed besides loopback ones
	// ("https://app.example"); a request without Origin is not a
	// browser's and passes this check.
	Origins []string
	// MaxRequestBytes bounds one request body; 0 is DefaultMaxRequestBytes.
	MaxRequestBytes int64
	// MaxConcurrent bounds requests in progress; 0 is DefaultMaxConcurrent.
	MaxConcurrent int
	// IdleTimeout closes a keep-alive connection that carries no request
	// for this long; 0 is DefaultIdleTimeout.
	IdleTimeout time.Duration
}

const (
	DefaultMaxRequestBytes = 4 << 20
	DefaultMaxConcurrent   = 32
	// DefaultIdleTimeout: an idle connection costs the host (and a
	// relaying front end) a descriptor, goroutines and buffers, and
	// MaxConcurrent counts only requests in progress.
	DefaultIdleTimeout = 2 * time.Minute
	// readHeaderTimeout bounds a request's head, idle or slow.
	readHeaderTimeout = 10 * time.Second
	// SessionIdleTTL ends an HTTP client's session after this long
	// without a request.
	SessionIdleTTL = 30 * time.Minute
	// EndpointPath is where the MCP endpoint is served.
	EndpointPath = mcpbind.EndpointPath
)

// CheckBind refuses a bind address that is not loopback unless public is
// set, and a public bind without an operator-given token (mcpbind's,
// which the small front end links too).
func CheckBind(addr string, public, tokenGiven bool) error {
	return mcpbind.CheckBind(addr, public, tokenGiven)
}

func isLoopbackHost(host string) bool { return mcpbind.IsLoopbackHost(host) }

// HTTPHandler is the MCP endpoint behind its checks, in this order: the
// Host and the Origin (against DNS rebinding), the bearer token, the
// body's size, and the number of requests in progress. The Host check is
// mcp-go's own rule (a loopback address wants a loopback Host), made
// here so that its refusal closes the connection; mcp-go's stays on
// behind it.
func (s *Server) HTTPHandler(o HTTPOptions) (*Endpoint, error) {
	if len(o.Token) < 16 {
		return nil, errors.New("the bearer token must be at least 16 characters")
	}
	if o.MaxRequestBytes <= 0 {
		o.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if o.MaxConcurrent <= 0 {
		o.MaxConcurrent = DefaultMaxConcurrent
	}
	// Stateful: the server issues session ids and refuses ids it did not
	// issue, so a client cannot step into another client's session (the
	// default manager accepts any id). An abandoned session ends after
	// SessionIdleTTL. The ids are sessionIDs': mcp-go's stateful manager
	// keeps every id it ever ended, forever.
	ids := &sessionIDs{}
	s.mu.Lock()
	s.ids = ids
	s.mu.Unlock()
	mcpHTTP := server.NewStreamableHTTPServer(s.mcp, server.WithEndpointPath(EndpointPath),
		server.WithSessionIdManager(ids), server.WithSessionIdleTTL(SessionIdleTTL),
		server.WithHeartbeatInterval(30*time.Second))
	want := sha256.Sum256([]byte(o.Token))
	slots := make(chan struct{}, o.MaxConcurrent)
	streams := make(chan struct{}, o.MaxConcurrent)
	replies := make(chan struct{}, o.MaxConcurrent)
	maxSessions := mcpbind.ConnsPerRequest * o.MaxConcurrent
	perSession := max(1, o.MaxConcurrent/2)
	var load sessionLoad
	var notices noticeCounters
	return &Endpoint{mcp: mcpHTTP, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if reboundHost(r) { // http_host.go
			refuseConn(w)
			http.Error(w, fmt.Sprintf("forbidden Host %q on a loopback address", r.Host), http.StatusForbidden)
			return
		}
		if origin := r.Header.Get("Origin"); origin != "" && !originAllowed(origin, o.Origins) {
			refuseConn(w)
			http.Error(w, "forbidden origin", http.StatusForbidden)
			return
		}
		token, ok := bearer(r.Header.Get("Authorization"))
		got := sha256.Sum256([]byte(token))
		if subtle.ConstantTimeCompare(got[:], want[:]) != 1 || !ok {
			refuseConn(w)
			w.Header().Set("WWW-Authenticate", `Bearer realm="demiurge"`)
			http.Error(w, "a bearer token is required (the one `demiurge mcp serve --http` printed or read from --token-file)", http.StatusUnauthorized)
			return
		}
		if r.ContentLength > o.MaxRequestBytes {
			http.Error(w, fmt.Sprintf("request body over %d bytes", o.MaxRequestBytes), http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, o.MaxRequestBytes)
		session := r.Header.Get(server.HeaderKeySessionID)
		if r.Method == http.MethodPost && session == "" && sessionlessCancel(w, r) {
			return
		}
		known, sessions := s.liveSessions(session)
		// A standalone GET stream is held for as long as the client
		// likes: it takes a stream place, never a request's, and only
		// for a session initialize made (mcp-go would make a session of
		// any id, or of none, for as long as the stream is held).
		places, busy := slots, "too many requests in progress"
		switch {
		case r.Method == http.MethodGet && !mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion)):
			if !known {
				http.Error(w, "a GET stream needs the Mcp-Session-Id of a session initialize made", http.StatusBadRequest)
				return
			}
			places, busy = streams, "too many GET streams are open"
		case r.Method == http.MethodPost && session == "" && sessions >= maxSessions &&
			!mcp.IsModernProtocol(r.Header.Get(mcp.HeaderProtocolVersion)):
			w.Header().Set("Retry-After", "60")
			http.Error(w, fmt.Sprintf("%d sessions are open, the most this endpoint keeps: end one (DELETE with its Mcp-Session-Id), or wait for an idle one to end (after %v)", sessions, SessionIdleTTL), http.StatusServiceUnavailable)
			return
		}
		select {
		case places <- struct{}{}:
			defer func() { <-places }()
			// One session's requests hold at most half the places, so
			// that one client cannot keep every other one out.
			if r.Method == http.MethodPost && session != "" && places == slots {
				end, n := load.take(r, session, perSession)
				if end == nil {
					w.Header().Set("Retry-After", "1")
					http.Error(w, fmt.Sprintf("this session has %d requests in progress, the most one session may (of %d for the endpoint): wait for one to end", n, o.MaxConcurrent), http.StatusServiceUnavailable)
					return
				}
				defer end()
			}
		default:
			// Every place may be held by calls that wait on their client's
			// answer (an elicitation's response) or that it would cancel:
			// those messages, which answer at once, have places of their
			// own, so that a call is never left waiting on a refused
			// answer (TestAnAnswerIsNeverRefusedForTheCallItAnswers).
			release, ok := replyPlace(r, replies)
			if !ok {
				w.Header().Set("Retry-After", "1")
				http.Error(w, busy, http.StatusServiceUnavailable)
				return
			}
			defer release()
		}
		w, r, release := notices.withNotices(w, r)
		defer release()
		mcpHTTP.ServeHTTP(w, r)
	})}, nil
}

// sessionlessCancel drops a notifications/cancelled that names no
// session (the 2026-07-28 revision has none): mcp-go keys a request in
// flight by its session and its JSON-RPC id, so without a session any
// client with the token could cancel another client's call by guessing its
// id (they count from 1). Such a client cancels its own call by closing
// the request's connection, which ends its context. It reports whether
// it answered (202, as to any notification); r.Body is read and put back.
func sessionlessCancel(w http.ResponseWriter, r *http.Request) bool {
	body, err := io.ReadAll(r.Body)
	if err != nil {
		http.Error(w, fmt.Sprintf("request body: %v", err), http.StatusRequestEntityTooLarge)
		return true
	}
	r.Body = io.NopCloser(bytes.NewReader(body))
	var msg struct {
		Method string `json:"method"`
	}
	if json.Unmarshal(body, &msg) != nil || msg.Method != string(mcp.MethodNotificationCancelled) {
		return false
	}
	w.WriteHeader(http.StatusAccepted)
	return true
}

// replyPlace takes one of replies for a POST that carries a response or a
// notification, when the places for requests are all held; it
// reads the body (bounded by r.Body's MaxBytesReader) to tell, and puts
// it back. A request, or a message whose shape is neither (closed world),
// is refused.
func replyPlace(r *http.Request, replies chan struct{}) (func(), bool) {
	if r.Method != http.MethodPost {
		return nil, false
	}
	select {
	case replies <- struct{}{}:
	default:
		return nil, false
	}
	release := func() { <-replies }
	body, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err != nil || !answersAtOnce(body) {
		release()
		return nil, false
	}
	return release, true
}

// sessionLoad counts each session's requests in progress.
type sessionLoad struct {
	mu sync.Mutex
	n  map[string]int
}

// take counts r as one of session's requests in progress, unless it is a
// response or a notification (which answer at once) or the session has
// limit already; end gives it back (nil when refused, with the count).
// r.Body is read and put back.
func (l *sessionLoad) take(r *http.Request, session string, limit int) (end func(), n int) {
	body, err := io.ReadAll(r.Body)
	r.Body = io.NopCloser(bytes.NewReader(body))
	if err == nil && answersAtOnce(body) {
		return func() {}, 0
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == nil {
		l.n = map[string]int{}
	}
	if n = l.n[session]; n >= limit {
		return nil, n
	}
	l.n[session]++
	return func() {
		l.mu.Lock()
		defer l.mu.Unlock()
		if l.n[session]--; l.n[session] <= 0 {
			delete(l.n, session)
		}
	}, n
}

// answersAtOnce reports whether body is a JSON-RPC response (an id and no
// method) or a notification (a method and no id), which the server
// answers without running anything that waits. It is answersAtOnceDecoded's
// decision (TestAnswersAtOnceIsTheDecoders, FuzzAnswersAtOnce) without
// building the body's value: mcp-go decodes it once more anyway. After
// json.Valid (the decoder's own check), it looks only at the top-level
// keys the decoder would match to id and method (ASCII case folded, as
// no other letter folds to theirs; the last of a repeated key counts);
// a key with an escape goes to the decoder.
func answersAtOnce(body []byte) bool {
	if !json.Valid(body) {
		return false
	}
	s := jsonscan.Scan{B: body}
	if !s.Next('{') {
		return false // null, or not an object: the decoder refuses it
	}
	var hasID, hasMethod, methodEmpty bool
	for !s.Next('}') {
		s.Next(',')
		key, escaped, ok := s.String()
		if !ok {
			return false // cannot be after json.Valid; never loop
		}
		if escaped {
			return answersAtOnceDecoded(body)
		}
		s.Next(':')
		switch {
		case asciiFold(key, "id"):
			hasID = true
			s.Skip()
		case asciiFold(key, "method"):
			s.Space()
			switch s.B[s.I] {
			case 'n': // null: no method
				hasMethod = false
				s.Skip()
			case '"':
				v, _, _ := s.String()
				hasMethod, methodEmpty = true, len(v) == 0
			default: // not a string: the decoder fails
				return false
			}
		default:
			s.Skip()
		}
	}
	response := !hasMethod && hasID
	notification := hasMethod && !methodEmpty && !hasID
	return response || notification
}

// asciiFold reports whether key is name (lower-case ASCII) in any case.
func asciiFold(key []byte, name string) bool {
	if len(key) != len(name) {
		return false
	}
	for i := range key {
		if key[i]|0x20 != name[i] {
			return false
		}
	}
	return true
}

// answersAtOnceDecoded is answersAtOnce by a full decode: what mcp-go's
// decoder makes of the keys.
func answersAtOnceDecoded(body []byte) bool {
	var m struct {
		ID     json.RawMessage `json:"id"`
		Method *string         `json:"method"`
	}
	if json.Unmarshal(body, &m) != nil {
		return false
	}
	response := m.Method == nil && len(m.ID) > 0
	notification := m.Method != nil && *m.Method != "" && len(m.ID) == 0
	return response || notification
}

// refuseConn closes the connection after a refusal: a client that was
// not let in holds no keep-alive connection (net/http closes after a
// response that says Connection: close).
func refuseConn(w http.ResponseWriter) { w.Header().Set("Connection", "close") }

// bearer is the token of an Authorization header of the Bearer scheme,
// whose name is case-insensitive (RFC 9110 §11.1).
func bearer(header string) (string, bool) {
	scheme, token, ok := strings.Cut(header, " ")
	return token, ok && strings.EqualFold(scheme, "Bearer")
}

// Endpoint is the guarded MCP endpoint; Shutdown ends its sessions and
// its idle-session sweeper.
type Endpoint struct {
	http.Handler
	mcp *server.StreamableHTTPServer
}

// Shutdown ends the endpoint's client sessions and its sweeper.
func (e *Endpoint) Shutdown(ctx context.Context) error { return e.mcp.Shutdown(ctx) }

// originAllowed: a loopback origin (a page of this machine's own), or one
// the operator listed exactly.
func originAllowed(origin string, allowed []string) bool {
	if slices.Contains(allowed, origin) {
		return true
	}
	u, err := url.Parse(origin)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return false
	}
	return isLoopbackHost(u.Hostname())
}

// ServeHTTP serves on ln until ctx is done; then it shuts down, ending
// every client's session.
func (s *Server) ServeHTTP(ctx context.Context, ln net.Listener, o HTTPOptions) error {
	h, err := s.HTTPHandler(o)
	if err != nil {
		return err
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = DefaultIdleTimeout
	}
	n := o.MaxConcurrent
	if n <= 0 {
		n = DefaultMaxConcurrent
	}
	// Connections that never finish a request head keep no client with
	// the token out (mcpbind.Gate); through the host the front end's gate
	// has let in only heads, and this one counts the same.
	ln = mcpbind.Gate(ln, o.Token, mcpbind.ConnsPerRequest*n)
	srv := &http.Server{Handler: h, ReadHeaderTimeout: readHeaderTimeout, IdleTimeout: o.IdleTimeout,
		MaxHeaderBytes: mcpbind.MaxHeadBytes, BaseContext: func(net.Listener) context.Context { return ctx }}
	go s.Watch(ctx)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(ln) }()
	select {
	case err := <-done:
		_ = h.Shutdown(context.Background())
		s.Close()
		return err
	case <-ctx.Done():
	}
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	err = srv.Shutdown(sctx)
	_ = h.Shutdown(sctx)
	s.Close()
	return err
}

// sessionIDs issues the endpoint's session ids and knows the live ones.
// mcp-go's own stateful manager (InsecureStatefulSessionIdManager) keeps
// every ended id as a tombstone for the life of the process: a client
// that opens and ends sessions in a loop grew the server by some 180
// bytes a session without bound (TestEndedSessionsAreForgotten). An ended
// id is forgotten here; a request that carries it is answered 404 as one
// with an id never issued, and a client starts a new session on a 404
// either way (the spec's rule for a terminated session).
type sessionIDs struct{ live sync.Map }

func (m *sessionIDs) Generate() string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	id := "mcp-session-" + hex.EncodeToString(b[:])
	m.live.Store(id, struct{}{})
	return id
}

func (m *sessionIDs) Validate(id string) (bool, error) {
	if _, ok := m.live.Load(id); !ok {
		return false, errors.New("no such session")
	}
	return false, nil
}

func (m *sessionIDs) Terminate(id string) (bool, error) {
	m.live.Delete(id)
	return false, nil
}

// has reports whether id is live.
func (m *sessionIDs) has(id string) bool {
	_, ok := m.live.Load(id)
	return ok
}

// count is how many ids are live, for tests.
func (m *sessionIDs) count() int {
	n := 0
	m.live.Range(func(any, any) bool { n++; return true })
	return n
}
