package toolhost

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"path/filepath"
	"sync"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/mcp"
	"demiurge.dev/host/policy"
	"demiurge.dev/host/runtime"
)

// Session is one conversation's standing in the host: the authority its
// turns run under and the MCP connections opened under that authority.
// Sessions share the host's plugins, store, tasks and approval resolver; a
// session allow is bound to the session's authority, so it never carries
// over to another session.
type Session struct {
	h         *Host
	authority policy.Authority
	parent    *Session
	// tools is a delegated child's tool selection; nil is every tool.
	tools map[string]bool
	mcp   sessionMCP
	// disclosure is the session's progressive disclosure (disclosure.go).
	disclosure disclosure
	// served is a session of one MCP client of `mcp serve` (served.go).
	served bool
	// unattended is the lease of a scheduled run's session and of its
	// children (schedulehook.go); nil for an attended session.
	unattended func(approval.Request) (bool, string)

	// remembered are the values bound to the commands of the delegation
	// tree this session is the root of (rememberedSecrets).
	remembered dispatch.RememberedSecrets

	recordMu sync.Mutex
	recorded bool
	// catalogs is the last catalog and what it was resolved from.
	catalogs catalogCache

	mu       sync.Mutex
	ended    bool
	children map[*Session]bool
	warnings []string
	// editor is the front end's editor (SetEditor); nil for none.
	editor Editor
}

// ErrSessionEnded is what a turn of an ended session gets.
var ErrSessionEnded = errors.New("the session has ended")

// Authority is what the session's turns run under.
func (s *Session) Authority() policy.Authority { return s.authority }

// ID is the session's id.
func (s *Session) ID() string { return s.authority.Session }

// Parent is the id of the session that delegated this one, or "".
func (s *Session) Parent() string {
	if s.parent == nil {
		return ""
	}
	return s.parent.ID()
}

// Warnings are the findings of the session's last catalog.
func (s *Session) Warnings() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.warnings...)
}

func (s *Session) live() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return fmt.Errorf("session %s: %w", s.ID(), ErrSessionEnded)
	}
	return nil
}

// Catalog resolves this turn's catalog for the session: the plugins' tools
// (one Describe per plugin, cached while binaries are unchanged), the
// session's MCP servers, narrowed to a delegated child's selection.
func (s *Session) Catalog(ctx context.Context) (*catalog.Catalog, error) {
	if err := s.live(); err != nil {
		return nil, err
	}
	return s.h.catalogFor(ctx, s, TurnOptions{})
}

// CatalogWith is Catalog resolved with o's approvals (a front end's own,
// which its MCP connects ask).
func (s *Session) CatalogWith(ctx context.Context, o TurnOptions) (*catalog.Catalog, error) {
	if err := s.live(); err != nil {
		return nil, err
	}
	return s.h.catalogFor(ctx, s, o)
}

// NewToolTurn is NewTurn for the operator's call of the one tool named:
// its catalog connects only the MCP servers that can offer that tool
// (mcp.MayOffer), so a call never asks to connect an unrelated server.
// The turn's catalog lacks the other servers' tools.
func (s *Session) NewToolTurn(ctx context.Context, tool string) (*dispatch.Turn, error) {
	return s.NewTurnWith(ctx, TurnOptions{Tool: tool})
}

// NewTurn makes a dispatch turn of this session over a freshly resolved
// catalog. The session is recorded in the store on its first turn, so that
// it can be resumed later.
func (s *Session) NewTurn(ctx context.Context) (*dispatch.Turn, error) {
	return s.NewTurnWith(ctx, TurnOptions{})
}

// NewCallTurn is NewTurn for the operator's one-shot call of a front end
// session, which is not recorded: such a session holds no messages, so
// there is nothing to list or resume, and the record's durable commit
// was most of what a fresh session added to a call (BENCHMARKS.md, issue
// 24). Its audit events, tasks and artifacts carry its id as before; a
// later turn of the session (a run) records it.
func (s *Session) NewCallTurn(ctx context.Context) (*dispatch.Turn, error) {
	return s.NewTurnWith(ctx, TurnOptions{Unrecorded: true})
}

// TurnOptions shape a turn beyond NewTurn's defaults.
type TurnOptions struct {
	// Tool names the one tool the operator calls (NewToolTurn): only the
	// MCP servers that can offer it are resolved. "" resolves every one.
	Tool string
	// Unrecorded leaves the session out of the store (NewCallTurn).
	Unrecorded bool
	// Approvals, when set, replace the host's resolver for the turn,
	// its MCP connect approvals included: a front end's own rules and
	// provider (hostd), so a connect is asked of the one who called.
	Approvals *approval.Resolver
	// DurableEvents makes the catalog's mcp.connect events committed
	// before it returns: an operator's `mcp list` through the host answers
	// only then, so an `audit` started right after shows them (a queued
	// event waits up to 100 ms for company, and a small front end's audit
	// is faster than that).
	DurableEvents bool
}

// NewTurnWith makes a dispatch turn shaped by o.
func (s *Session) NewTurnWith(ctx context.Context, o TurnOptions) (*dispatch.Turn, error) {
	return s.newTurn(ctx, o)
}

func (s *Session) newTurn(ctx context.Context, o TurnOptions) (*dispatch.Turn, error) {
	if err := s.live(); err != nil {
		return nil, err
	}
	cat, err := s.h.catalogFor(ctx, s, o)
	if err != nil {
		return nil, err
	}
	store, err := s.h.Store()
	if err != nil {
		return nil, err
	}
	if !o.Unrecorded {
		if err := s.record(ctx, store); err != nil {
			return nil, err
		}
	}
	bg, err := s.h.background()
	if err != nil {
		return nil, err
	}
	approvals := s.h.Approvals
	if o.Approvals != nil {
		approvals = o.Approvals
	}
	if s.offersTerminal() {
		approvals = alwaysAskTerminal(approvals)
	}
	turnID := newID("turn_")
	turn := &dispatch.Turn{
		ID: turnID, Catalog: cat, Authority: s.authority, Workspace: s.h.Workspace,
		Approvals: approvals, Events: store, ArtifactRoot: s.ArtifactRoot(), Artifacts: store, Background: bg,
		OutputCap: s.h.outputCap, ArtifactBudget: s.h.artifactBudget,
		Sandbox:            s.h.Sandbox,
		SearchCapabilities: s.searchCapabilities(cat, turnID),
		Todos:              store,
		Timezone:           s.h.timezone,
		Remembered:         s.rememberedSecrets(),
		HostSecrets:        dispatch.NewHostSecrets(s.h.hostCredentials()),
		Delegate:           s.h.spawner(s),
		AgentTask:          s.h.agentTasker(s),
		Core:               s.h.coreController(),
		CoreCard:           s.h.coreCard(),
		// A core file read from the workspace is wrapped when the core asks.
		UntrustedWorkspaceReads: s.h.Core != nil && s.h.Core.UntrustedReads,
	}
	s.h.scheduleTurn(s, turn)
	// An interface holding a nil *historySearcher is not nil: set it only
	// when there is one.
	if hist, err := s.h.historyFor(cat); err != nil {
		return nil, err
	} else if hist != nil {
		turn.History = hist
	}
	return turn, nil
}

// record writes the session's record once; a failed write (a cancelled
// turn) is tried again on the next turn.
func (s *Session) record(ctx context.Context, store *runtime.Store) error {
	s.recordMu.Lock()
	defer s.recordMu.Unlock()
	if s.recorded {
		return nil
	}
	err := store.RecordSession(ctx, s.Record())
	s.recorded = err == nil
	return err
}

// Record is the session's store record.
func (s *Session) Record() runtime.SessionRecord {
	return runtime.SessionRecord{ID: s.ID(), Principal: s.authority.Principal, Parent: s.Parent()}
}

// MarkRecorded tells s that its Record is durable already (written in the
// commit of a child's agent.spawn task), so its first turn skips that
// commit.
func (s *Session) MarkRecorded() {
	s.recordMu.Lock()
	s.recorded = true
	s.recordMu.Unlock()
}

// rememberedSecrets are the values bound to the commands of this
// session's whole delegation tree, kept by its root: a child reads what
// its parent's command left (a log of its environment) and its answer
// goes back to the parent, so a value bound in one is redacted in all.
func (s *Session) rememberedSecrets() *dispatch.RememberedSecrets {
	root := s
	for root.parent != nil {
		root = root.parent
	}
	return &root.remembered
}

// ArtifactRoot is the session's private artifact directory, under
// runtime/artifacts, named by an opaque hash of principal and session.
func (s *Session) ArtifactRoot() string {
	sum := sha256.Sum256([]byte(s.authority.Principal + "\x00" + s.authority.Session))
	return filepath.Join(s.h.StateDir, "runtime", "artifacts", hex.EncodeToString(sum[:12]))
}

// TaskScope is what the session's model and its interactive session may
// see of tasks.
func (s *Session) TaskScope() runtime.TaskScope {
	return runtime.TaskScope{Principal: s.authority.Principal, Session: s.authority.Session}
}

// MCPStates are the declared servers' standings after the session's last
// catalog.
func (s *Session) MCPStates() []mcp.State { return s.mcp.snapshot() }

// TestMCP connects the declared server now (through its connect gate,
// whatever its retry window says) and returns what it found.
func (s *Session) TestMCP(ctx context.Context, server string) (mcp.State, error) {
	if err := s.live(); err != nil {
		return mcp.State{}, err
	}
	return s.h.testMCP(ctx, s, server, nil)
}

// TestMCPWith is TestMCP with its connect judged by approvals (a front
// end's rules and provider) instead of the host's.
func (s *Session) TestMCPWith(ctx context.Context, server string, approvals *approval.Resolver) (mcp.State, error) {
	if err := s.live(); err != nil {
		return mcp.State{}, err
	}
	return s.h.testMCP(ctx, s, server, approvals)
}

// Evict closes the session's MCP connections and nothing else: the
// session stays usable, and its next turn connects again (through the
// connect gate). Other sessions, its children included, keep theirs.
func (s *Session) Evict() { s.mcp.close() }

// End ends the session's run: its delegated children end first; a
// child's background tasks are cancelled; then its MCP connections close,
// every stdio server it started is killed, and its session approvals are
// revoked. A top-level session's tasks run on: resuming it finds them.
// Turns of an ended session fail with ErrSessionEnded. End is idempotent.
func (s *Session) End() {
	s.mu.Lock()
	if s.ended {
		s.mu.Unlock()
		return
	}
	s.ended = true
	kids := s.children
	s.children = nil
	s.mu.Unlock()
	for k := range kids {
		k.End()
	}
	if s.parent != nil || s.served {
		// A child's run, or a served client's, is over for good: its
		// background tasks end with it.
		s.h.cancelSessionTasks(s.TaskScope())
	}
	s.mcp.close()
	// Session allows die with their session, also if it is resumed later.
	if ap := s.h.Approvals; ap != nil && ap.Sessions != nil {
		ap.Sessions.Revoke(s.ID())
	}
	if s.parent != nil {
		s.parent.mu.Lock()
		delete(s.parent.children, s)
		s.parent.mu.Unlock()
	}
	s.h.forget(s)
}

func (s *Session) adopt(child *Session) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ended {
		return fmt.Errorf("session %s: %w", s.ID(), ErrSessionEnded)
	}
	if s.children == nil {
		s.children = map[*Session]bool{}
	}
	s.children[child] = true
	return nil
}
