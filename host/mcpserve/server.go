package mcpserve

import (
	"context"
	"demiurge.dev/host/untrusted"
	"errors"
	"fmt"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"demiurge.dev/catalog"
	"demiurge.dev/host/toolhost"
)

// Options configure a served host.
type Options struct {
	// Host is the assembled host whose catalog is served; the caller
	// opens and closes it.
	Host *toolhost.Host
	// Version is what serverInfo names.
	Version string
	// Refresh is how often the listed catalog is resolved again to notice
	// a change (tools/list_changed); 0 is DefaultRefresh, < 0 never (a
	// change is still noticed on the next call).
	Refresh time.Duration
	// MaxRequestBytes bounds one message read over stdio; 0 is
	// DefaultMaxRequestBytes (over HTTP, HTTPOptions bound a request).
	MaxRequestBytes int
	// ApprovalTimeout bounds the wait for a client's elicitation answer;
	// 0 is DefaultApprovalTimeout.
	ApprovalTimeout time.Duration
	// MaxTasks bounds the MCP tasks running at once (tasks.go); 0 is
	// DefaultMaxTasks.
	MaxTasks int
	// MaxStdioRequests bounds the requests other than tools/call a stdio
	// client has in progress at once (stdio_gate.go); 0 is
	// DefaultMaxStdioRequests.
	MaxStdioRequests int
	// Principal is the principal the clients' sessions run under; "" is
	// the host's own (a host of many front ends serves several).
	Principal string
	// Approve, when not nil, replaces the host's --approve rules for
	// this server's calls (approval.WithCommandLine): the rules of the
	// `mcp serve` front end this server serves.
	Approve []string
}

const (
	DefaultRefresh         = 5 * time.Second
	DefaultApprovalTimeout = 5 * time.Minute
)

// Server is the policed catalog as an MCP server.
type Server struct {
	opts Options
	h    *toolhost.Host
	mcp  *server.MCPServer

	mu        sync.Mutex
	clients   map[string]*toolhost.Session // by MCP session id
	live      map[string]bool              // the MCP sessions mcp-go registered
	stateless *toolhost.Session
	listed    string // fingerprint of the listed catalog
	deferred  map[string]bool
	closed    bool
	ids       *sessionIDs // the HTTP endpoint's session ids, for tests

	pending pendingApprovals
	tasks   taskRuns
	calls   atomic.Uint64
}

// New builds the server and lists the host's current catalog.
func New(ctx context.Context, opts Options) (*Server, error) {
	if opts.Host == nil {
		return nil, errors.New("mcpserve: no host")
	}
	if opts.ApprovalTimeout == 0 {
		opts.ApprovalTimeout = DefaultApprovalTimeout
	}
	if opts.MaxRequestBytes <= 0 {
		opts.MaxRequestBytes = DefaultMaxRequestBytes
	}
	if opts.MaxStdioRequests <= 0 {
		opts.MaxStdioRequests = DefaultMaxStdioRequests
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := &Server{opts: opts, h: opts.Host, clients: map[string]*toolhost.Session{}, live: map[string]bool{}}
	hooks := &server.Hooks{}
	hooks.AddOnRegisterSession(func(_ context.Context, cs server.ClientSession) {
		s.mu.Lock()
		s.live[cs.SessionID()] = true
		s.mu.Unlock()
	})
	hooks.AddOnUnregisterSession(func(_ context.Context, cs server.ClientSession) {
		s.mu.Lock()
		delete(s.live, cs.SessionID())
		s.mu.Unlock()
		s.endClient(cs.SessionID())
	})
	s.mcp = server.NewMCPServer("demiurge", opts.Version, append(s.taskOptions(hooks, opts.MaxTasks),
		server.WithToolCapabilities(true),
		server.WithLogging(), // logging/setLevel; the host logs to its own file, not to clients
		server.WithHooks(hooks),
		server.WithRecovery(),
		server.WithToolFilter(s.visible),
		// What MCP servers and web pages return reaches this client's model
		// in the untrusted-output envelope too, so it is told what that means.
		server.WithInstructions(serverInstructions),
	)...)
	cat, err := s.h.Catalog(ctx)
	if err != nil {
		return nil, err
	}
	s.list(cat)
	return s, nil
}

// MCPServer is the mcp-go server, for a transport.
func (s *Server) MCPServer() *server.MCPServer { return s.mcp }

// list makes cat the listed tools; a changed catalog notifies every
// initialized client (notifications/tools/list_changed).
func (s *Server) list(cat *catalog.Catalog) {
	fp := cat.Fingerprint()
	s.mu.Lock()
	if fp == s.listed {
		s.mu.Unlock()
		return
	}
	s.listed = fp
	s.deferred = map[string]bool{}
	for _, e := range cat.Entries() {
		if cat.Deferred(e.Spec.Name) {
			s.deferred[e.Spec.Name] = true
		}
	}
	s.mu.Unlock()
	tools := make([]server.ServerTool, 0, cat.Len())
	for _, e := range cat.Entries() {
		tools = append(tools, server.ServerTool{Tool: toolOf(e), Handler: s.handle})
	}
	s.mcp.SetTools(tools...)
}

// visible filters tools/list and tools/call for the client's session: a
// deferred tool is listed, and callable, once search_capabilities
// activated it in that session, as a provider would be given it.
func (s *Server) visible(ctx context.Context, tools []mcp.Tool) []mcp.Tool {
	s.mu.Lock()
	deferred := s.deferred
	s.mu.Unlock()
	if len(deferred) == 0 {
		return tools
	}
	ses, err := s.sessionFor(ctx)
	if err != nil {
		return nil
	}
	return slices.DeleteFunc(slices.Clone(tools), func(t mcp.Tool) bool { return deferred[t.Name] && !ses.Activated(t.Name) })
}

// toolOf is an entry as tools/list shows it: the model-facing name,
// description and input schema, as a provider would be given them.
func toolOf(e *catalog.Entry) mcp.Tool {
	return mcp.Tool{
		Name: e.Spec.Name, Description: e.Spec.Description,
		RawInputSchema: e.Schema.JSON(), Annotations: annotations(e),
		Execution: &mcp.ToolExecution{TaskSupport: mcp.TaskSupportOptional}, // as an MCP task too (tasks.go)
	}
}

// Watch resolves the listed catalog every Refresh until ctx ends, so a
// change reaches the clients without waiting for a call.
func (s *Server) Watch(ctx context.Context) {
	every := s.opts.Refresh
	if every == 0 {
		every = DefaultRefresh
	}
	if every < 0 {
		return
	}
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if cat, err := s.h.Catalog(ctx); err == nil {
				s.list(cat)
			}
		}
	}
}

// sessionFor is the toolhost session of the client a request came from:
// one per MCP session, made on its first call; the stateless revision's
// requests share one.
func (s *Server) sessionFor(ctx context.Context) (*toolhost.Session, error) {
	id := ""
	if !server.IsModernRequest(ctx) {
		id = sessionIDOf(ctx)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("the server is shutting down")
	}
	if id == "" {
		if s.stateless == nil {
			s.stateless = s.h.OpenSessionAs(s.opts.Principal, true)
		}
		return s.stateless, nil
	}
	ses := s.clients[id]
	if ses == nil {
		// A call that raced its session's end (DELETE, the idle sweep)
		// would make a session nobody ends: the id is ended before
		// endClient takes mu, so it is checked under mu.
		if s.ids != nil && overHTTP(ctx) && !s.ids.has(id) {
			return nil, errors.New("the MCP session has ended: initialize a new one")
		}
		ses = s.h.OpenSessionAs(s.opts.Principal, true)
		s.clients[id] = ses
	}
	return ses, nil
}

// endClient ends a disconnected client's session: its session allows
// are revoked and its background tasks and MCP tasks cancelled.
func (s *Server) endClient(id string) {
	s.tasks.endSession(id)
	s.mu.Lock()
	ses := s.clients[id]
	delete(s.clients, id)
	s.mu.Unlock()
	if ses != nil {
		ses.End()
	}
}

// liveSessions says whether id is a registered MCP session, and how many
// there are.
func (s *Server) liveSessions(id string) (bool, int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.live[id], len(s.live)
}

// Close ends every client's session; the host stays open.
func (s *Server) Close() {
	s.mu.Lock()
	s.closed = true
	all := make([]*toolhost.Session, 0, len(s.clients)+1)
	for _, ses := range s.clients {
		all = append(all, ses)
	}
	if s.stateless != nil {
		all = append(all, s.stateless)
	}
	s.clients = map[string]*toolhost.Session{}
	s.stateless = nil
	s.mu.Unlock()
	s.tasks.close()
	for _, ses := range all {
		ses.End()
	}
}

// nextCallID names a served call in the audit trail.
func (s *Server) nextCallID() string { return fmt.Sprintf("mcp_%d", s.calls.Add(1)) }

// serverInstructions are the initialize result's instructions.
const serverInstructions = "Demiurge's policed tools: every call passes its shell guard, approvals, redaction and audit.\n\n" + untrusted.Instructions
