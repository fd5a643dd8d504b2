package turn

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"

	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/pipeline"
	"demiurge.dev/host/providers"
	"demiurge.dev/host/runtime"
	"demiurge.dev/host/untrusted"
)

// DefaultMaxSteps is the step cap when Loop.MaxSteps is 0: model steps per
// turn, each one request and at most one batch of tool calls.
const DefaultMaxSteps = 50

// Source gives the loop its session's dispatch turns. toolhost.Session is
// one: every NewTurn resolves the catalog afresh (authority, core
// revision, MCP state), the same resolution `tools list` prints.
type Source interface {
	ID() string
	NewTurn(ctx context.Context) (*dispatch.Turn, error)
}

// Status is how a turn ended (the turn_end event's status).
type Status string

const (
	StatusDone      Status = "done"
	StatusFailed    Status = "failed"
	StatusCancelled Status = "cancelled"
	StatusStepCap   Status = "step_cap"
)

// Result is what Run returns once the turn has ended.
type Result struct {
	Turn   string
	Status Status
	// Text is the model's last reply text of the turn.
	Text  string
	Steps int
	// Usage sums the provider's token counts of the turn's steps.
	Usage providers.Usage
}

// Loop is the agent loop of one session. It runs one turn at a time; the
// history lives in the store (runtime messages), so a Loop made over a
// resumed session continues its conversation.
type Loop struct {
	Provider providers.Provider
	Session  Source
	Store    *runtime.Store
	// MaxSteps caps a turn's model steps; 0 means DefaultMaxSteps.
	MaxSteps int
	// System is the system instruction text.
	System string
	// Instructions are added to the system text at every step, in order
	// (a skills index, the workspace's notes); an error fails the turn.
	Instructions []func(ctx context.Context) (string, error)
	// MaxOutputTokens and Temperature are passed on with every request.
	MaxOutputTokens int
	Temperature     *float64
	// Completions shows the background-completion turns (see
	// TaskEnded); nil shows them to no one and approves nothing.
	Completions FrontEnd
	// Announce, when set, makes each turn open with an init event: these
	// fields (version, sandbox) and the model and tools of its first step.
	Announce *EventDetail
	// Stages runs the core's input and output pipeline stages; nil: the
	// Session's own (toolhost.Session.PipelineStages), if it has them.
	Stages pipeline.Stages

	// running admits one turn at a time.
	running chan struct{}
	once    sync.Once

	mu      sync.Mutex
	history []runtime.MessageRecord
	// decoded[i] is history[i] as a provider message, decoded once.
	decoded []providers.Message
	// callIDs are the ids of every tool call in the history, kept as it
	// grows (a step's new calls are checked against them) instead of
	// gathered from the whole history at every step.
	callIDs map[string]bool
	loaded  bool
	bg      completionState
}

// ErrNoProvider is Run's answer when no model is configured.
var ErrNoProvider = errors.New("no model is configured")

func (l *Loop) init() {
	l.once.Do(func() { l.running = make(chan struct{}, 1) })
}

func (l *Loop) maxSteps() int {
	if l.MaxSteps > 0 {
		return l.MaxSteps
	}
	return DefaultMaxSteps
}

// Run runs one turn for prompt: the model's steps and their tool batches
// until the model ends the turn, the step cap, a failure or ctx's end.
// Cancelling ctx cancels this turn only (background tasks go on); the
// turn is recorded as cancelled and the loop stays usable. The error is
// non-nil only when the turn could not start or failed; a cancelled or
// capped turn returns its Result with a nil error.
func (l *Loop) Run(ctx context.Context, prompt string, fe FrontEnd) (Result, error) {
	if l.Provider == nil {
		return Result{Status: StatusFailed}, ErrNoProvider
	}
	if l.Session == nil || l.Store == nil {
		return Result{Status: StatusFailed}, errors.New("the turn loop needs a session and a store")
	}
	if strings.TrimSpace(prompt) == "" {
		return Result{Status: StatusFailed}, errors.New("empty prompt")
	}
	l.init()
	select {
	case l.running <- struct{}{}:
	case <-ctx.Done():
		return Result{Status: StatusCancelled}, nil
	}
	res, err := l.runLocked(ctx, prompt, fe)
	<-l.running
	return res, err
}

func (l *Loop) runLocked(ctx context.Context, prompt string, fe FrontEnd) (Result, error) {
	t := &turnRun{loop: l, fe: fe, id: newTurnID(), session: l.Session.ID(), boundary: untrusted.NewBoundary()}
	// Dispatch turns made for this turn on the way (the pipeline slots')
	// get its front end and call count, as its own steps' do.
	ctx = dispatch.WithBinding(ctx, t.bind)
	if err := l.load(); err != nil {
		return t.fail(ctx, fmt.Errorf("the session's history could not be read: %w", err))
	}
	t.show(Event{Type: EventTurnStart})
	prompt, err := t.input(ctx, prompt)
	if err != nil {
		return t.fail(ctx, err)
	}
	if err := t.append(ctx, runtime.MessageRecord{Role: string(providers.RoleUser), Text: prompt}); err != nil {
		return t.fail(ctx, err)
	}
	return t.steps(ctx)
}

// load reads the session's history from the store once.
func (l *Loop) load() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.loaded {
		return nil
	}
	msgs, err := l.Store.Messages(l.Session.ID(), 0)
	if err != nil {
		return err
	}
	decoded, err := decodeAll(msgs)
	if err != nil {
		return err
	}
	l.history, l.decoded, l.loaded = msgs, decoded, true
	l.callIDs = usedCallIDs(decoded)
	return nil
}

// holdsEnvelope reports whether the history holds a wrapped tool result
// (a wrapped result's model view starts with the envelope's opening
// line), so the instructions that explain the envelope stay in the system
// text though the catalog that wrapped it changed: a resume under another
// core, an MCP server gone. A result that only looks wrapped adds the
// instructions, which is safe. One prefix test a result, at every step.
func (l *Loop) holdsEnvelope() bool {
	_, msgs := l.snapshot()
	for _, m := range msgs {
		for _, r := range m.ToolResults {
			if strings.HasPrefix(r.Content, untrusted.OpenTag) {
				return true
			}
		}
	}
	return false
}

// snapshot is the history and its decoded messages as they are now.
func (l *Loop) snapshot() ([]runtime.MessageRecord, []providers.Message) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.history[:len(l.history):len(l.history)], l.decoded[:len(l.decoded):len(l.decoded)]
}

// History is the session's stored conversation as the loop knows it.
func (l *Loop) History() ([]runtime.MessageRecord, error) {
	if err := l.load(); err != nil {
		return nil, err
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]runtime.MessageRecord(nil), l.history...), nil
}

func newTurnID() string {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return "turn_" + hex.EncodeToString(b[:])
}
