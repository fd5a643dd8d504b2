package dispatch

import (
	"context"
	"sync/atomic"
	"time"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/policy"
	"demiurge.dev/host/redact"
	"demiurge.dev/host/runtime"
	"demiurge.dev/host/sandboxing"
	"demiurge.dev/shared/toolsetv1"
)

// EventSink is where audit events go; the runtime store is the real one.
// Append returns once the event is durable. It must not keep ev.Data
// after it returns (the store encodes the event into bytes of its own):
// dispatch writes the next call's audit data into the same buffer.
type EventSink interface {
	Append(ctx context.Context, ev runtime.Event) (uint64, error)
}

// DefaultMaxCalls is the per-turn cap on tool calls.
const DefaultMaxCalls = 64

// Turn is everything one turn's calls run under: its resolved catalog, its
// authority, its workspace and its approval resolver.
type Turn struct {
	ID string
	// Remembered are the values bound to earlier commands of the session,
	// redacted in every later result (nil: none kept).
	Remembered *RememberedSecrets
	// HostSecrets are the host's own credentials (host_secrets.go),
	// redacted in every result, live output and approval text of the turn
	// and never handed to a plugin (nil: none).
	HostSecrets *HostSecrets
	Catalog     *catalog.Catalog
	Authority   policy.Authority
	Workspace   policy.Workspace
	Approvals   *approval.Resolver
	Events      EventSink
	// ArtifactRoot is where this turn's calls may write artifacts.
	ArtifactRoot string
	// OutputCap is the most bytes of one output stream a call keeps in its
	// artifact (the operator's setting); 0 leaves the plugin's default.
	OutputCap int64
	// ArtifactBudget is the most bytes the indexed artifacts under
	// runtime/artifacts may hold (the operator's setting); 0 means
	// runtime.DefaultArtifactBudget. Only with an Artifacts that prunes.
	ArtifactBudget int64
	// Artifacts indexes the artifacts calls report (optional; without it
	// they are checked but not recorded).
	Artifacts ArtifactIndex
	// Deliver receives text a running tool sends to the turn (optional).
	Deliver func(ctx context.Context, tool, text string) error
	// Clarify asks the operator the clarify tool's question (the turn's
	// front end answers); nil, or ok false, means no one can answer.
	Clarify func(ctx context.Context, question string, choices []string) (answer string, ok bool, err error)
	// Todos keeps the session's task list (the todo tool), History answers
	// session_search (conversation.go); nil refuses those tools.
	Todos   TodoStore
	History HistorySearcher
	// OnEvent receives a call's progress and output as it runs (optional).
	// A progress message is redacted as the call's views are; output
	// chunks are raw tool output: a caller that shows them must redact
	// them first (OnOutput gives them redacted).
	OnEvent func(callID string, ev Event)
	// OnOutput receives a foreground call's output as it comes, redacted
	// as the call's views are and valid UTF-8, for an operator to watch
	// (optional). Text is held until its line ends or 4 KiB wait.
	OnOutput func(callID, stream, text string)
	// MaxCalls caps the calls of this turn; 0 means DefaultMaxCalls.
	MaxCalls int
	// CallCount, when set, counts the calls against MaxCalls in place of
	// this Turn's own count: the agent loop resolves a Turn for each model
	// step and shares one count across the steps of its turn.
	CallCount *atomic.Int64
	// Background runs calls that ask for background; nil refuses them.
	Background *Background
	// Commands says how command environments are built (command.go).
	Commands CommandConfig
	// Sandbox is the OS sandbox of the commands this turn runs (zero:
	// none configured; see sandbox.go).
	Sandbox sandboxing.Config
	// SearchCapabilities answers search_capabilities for this turn's
	// session: it searches the deferred tools and activates the matches
	// (the host sets it; nil refuses the RPC).
	SearchCapabilities func(ctx context.Context, query string, limit int) (*toolsetv1.SearchCapabilitiesResponse, error)

	// Delegate is the spawn gate for this turn's delegate_task calls (the
	// host sets it; nil refuses delegate_task).
	Delegate Delegator
	// AgentTask answers ctx.agents handles (status, wait, cancel) of this
	// turn's session; set with Delegate.
	AgentTask AgentTasker
	// Schedules answers this turn's schedule_manage calls (the host sets
	// it; nil refuses schedule_manage).
	Schedules Scheduler

	// Core runs this turn's rollback_core and evolve_core calls against the core
	// repository (the host sets it for a versioned core; nil refuses them).
	Core CoreController
	// CoreCard adds to a core call's approval card what it would move,
	// and binds the call to it (nil: nothing added, nothing bound).
	CoreCard CoreCard

	// Timezone is the IANA zone the operator configured; commands run with
	// TZ set to it ("" leaves the host's).
	Timezone string

	// Boundary is the random boundary of the envelopes around untrusted
	// output (untrusted.go); the agent loop sets one per model turn, and
	// a Turn without one draws its own on first use.
	Boundary string
	// UntrustedWorkspaceReads wraps and screens file reads of the
	// workspace too (the core's tools.untrusted_reads).
	UntrustedWorkspaceReads bool

	calls     atomic.Int64
	untrusted untrustedState
}

// Event is a running call's progress, output chunk or artifact.
type Event struct {
	Progress string
	Fraction float64
	Stream   string
	Data     []byte
	Artifact string
}

func eventOf(ev *toolsetv1.InvokeEvent) Event {
	switch {
	case ev.GetProgress() != nil:
		return Event{Progress: ev.GetProgress().GetMessage(), Fraction: ev.GetProgress().GetFraction()}
	case ev.GetOutput() != nil:
		return Event{Stream: ev.GetOutput().GetStream(), Data: ev.GetOutput().GetData()}
	case ev.GetArtifact() != nil:
		return Event{Artifact: ev.GetArtifact().GetPath()}
	}
	return Event{}
}

// ToolCall is one call as the model (or an operator) asked for it.
type ToolCall struct {
	// ID is the caller's id for the call (the model's tool-call id).
	ID   string
	Name string
	Args []byte
}

// Status says how a call ended.
type Status string

const (
	StatusOK               Status = "ok"
	StatusToolError        Status = "tool_error"
	StatusUnknownTool      Status = "unknown_tool"
	StatusInvalidArguments Status = "invalid_arguments"
	StatusCapabilityDenied Status = "capability_denied"
	StatusPrecheckFailed   Status = "precheck_failed"
	StatusBlocked          Status = "blocked"
	StatusDenied           Status = "denied"
	StatusFailed           Status = "failed"
	StatusCapExceeded      Status = "cap_exceeded"
	StatusAuditFailed      Status = "audit_failed"
)

// Outcome is what a call produced: only redacted views leave dispatch.
type Outcome struct {
	CallID     string
	Tool       string
	Status     Status
	Views      redact.Views
	Approval   approval.Outcome
	Assessment *policy.Assessment
	// EventSeq is the audit event's sequence number in the store.
	EventSeq uint64
	Duration time.Duration
	// Edit is what a file write that ran did to its file (nil for other
	// calls and where it cannot be shown: file_edit.go).
	Edit *approval.FileEdit
}

// OK reports whether the call ran and its tool reported success.
func (o Outcome) OK() bool { return o.Status == StatusOK }
