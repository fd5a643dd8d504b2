package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"reflect"
	"sync"

	"github.com/urfave/cli/v2"

	"demiurge.dev/catalog"
	"demiurge.dev/cmd/internal/termsession"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/providers"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/host/turn"
)

// chat is the model side of the interactive session: a turn loop over
// the session in use, made again when /session switches to another.
type chat struct {
	r *repl
	// model is the session's opening model (flags, else agent.yaml's); a
	// resumed session talks to the model it remembers instead (modelFor).
	model providers.Provider
	cfg   providers.Config
	fe    *chatFrontEnd

	mu        sync.Mutex
	loop      *turn.Loop
	loopModel providers.Provider
	session   string
	stopTasks func()
}

// openChat makes the chat when a model is configured; nil without one.
func openChat(c *cli.Context, r *repl, approver approval.Provider) (*chat, error) {
	if _, ok, err := modelConfig(c, r.h.Core.Model); err != nil || !ok {
		return nil, err
	}
	model, cfg, err := openModel(c, r.h.Core.Model)
	if err != nil {
		return nil, err
	}
	display, err := catalog.ParseDisplayMode(c.String("tool-display"))
	if err != nil {
		return nil, usagef("--tool-display: %v", err)
	}
	fe := &chatFrontEnd{Chat: &termsession.Chat{Out: r.Out, ErrOut: r.ErrOut, Display: display, LineBuffered: r.TTY}, approver: approver}
	if r.TTY {
		fe.Ask = r.Lines
		fe.Interrupt = func() { r.StopForeground("^C") }
		fe.Lead = r.Lines.SetLead
	}
	return &chat{r: r, model: model, cfg: cfg, fe: fe}, nil
}

// loopFor is the loop of the session in use.
func (ch *chat) loopFor() (*turn.Loop, error) {
	h := ch.r.h
	s := h.Session()
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.loop != nil && ch.session == s.ID() {
		return ch.loop, nil
	}
	ch.closeLocked()
	store, err := h.Store()
	if err != nil {
		return nil, err
	}
	model, cfg, err := ch.modelFor(s.ID())
	if err != nil {
		return nil, err
	}
	ch.loop = &turn.Loop{Provider: model, Session: liveSource{Session: s, fe: ch.fe}, Store: store,
		MaxSteps: ch.r.c.Int("max-steps"), System: systemPrompt, Instructions: agentInstructions(h),
		MaxOutputTokens: cfg.MaxOutputTokens, Temperature: cfg.Temperature, Completions: ch.fe}
	ch.loopModel = model
	installSpawnGate(h, s, func(child *toolhost.Session) (*turn.Loop, error) {
		return &turn.Loop{Provider: model, Session: child, Store: store, System: systemPrompt,
			MaxOutputTokens: cfg.MaxOutputTokens, Temperature: cfg.Temperature}, nil
	})
	ch.session = s.ID()
	ch.fe.Opened(s.ID())
	rememberModel(ch.r.c.Context, h, s.ID(), cfg) // for a later `sessions resume`
	ch.stopTasks = h.OnTaskComplete(ch.loop.TaskEnded)
	return ch.loop, nil
}

// modelFor is the model session id talks to, as `run --resume` picks it:
// --model when given, else the model the session remembers, else the
// opening model. The key is read from this process's environment, by
// the variable the remembered model names; a key is never remembered.
func (ch *chat) modelFor(id string) (providers.Provider, providers.Config, error) {
	flags := modelFlagsOf(ch.r.c)
	fromCore := ch.r.h.Core.Model
	remembered := sessionModel(ch.r.h, id, fromCore)
	if flags.Model != "" || remembered == fromCore {
		return ch.model, ch.cfg, nil
	}
	cfg, _, err := modelConfigOf(flags, remembered)
	if err != nil {
		return nil, cfg, err
	}
	if reflect.DeepEqual(cfg, ch.cfg) {
		return ch.model, ch.cfg, nil
	}
	model, cfg, err := openModelOf(flags, remembered, os.Getenv)
	if err != nil {
		return nil, cfg, fmt.Errorf("session %s's model %s:%s: %w", id, cfg.Provider, cfg.Name, err)
	}
	return model, cfg, nil
}

// switched makes the loop of the session /session switched to at once,
// saying which model it talks to when that is not the one the chat
// talked to before.
func (ch *chat) switched(before string) {
	loop, err := ch.loopFor()
	if err != nil {
		fmt.Fprintf(ch.r.ErrOut, "demiurge: %v\n", err)
		return
	}
	if name := loop.Provider.Name(); name != before {
		fmt.Fprintf(ch.r.Out, "chatting with %s (the session's model)\n", name)
	}
}

// current is the model of the session in use (the opening one before a
// first turn).
func (ch *chat) current() string {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	if ch.loopModel != nil {
		return ch.loopModel.Name()
	}
	return ch.model.Name()
}

// run is one chat turn in the foreground.
func (ch *chat) run(ctx context.Context, prompt string) {
	loop, err := ch.loopFor()
	if err != nil {
		fmt.Fprintf(ch.r.ErrOut, "demiurge: %v\n", err)
		return
	}
	res, err := loop.Run(ctx, prompt, ch.fe)
	switch {
	case err != nil && !errors.Is(err, context.Canceled):
		fmt.Fprintf(ch.r.ErrOut, "demiurge: %v\n", err)
	case res.Status == turn.StatusCancelled:
		fmt.Fprintln(ch.r.ErrOut, "(turn stopped; the session goes on)")
	}
}

func (ch *chat) close() {
	ch.mu.Lock()
	defer ch.mu.Unlock()
	ch.closeLocked()
}

func (ch *chat) closeLocked() {
	if ch.stopTasks != nil {
		ch.stopTasks()
		ch.stopTasks = nil
	}
	if ch.loop != nil {
		ch.loop.Close()
		ch.loop = nil
	}
}

// liveSource is the session as the loop's Source, with every dispatch
// turn's running output shown on the chat's terminal (redacted by
// dispatch.Turn.OnOutput) as it comes.
type liveSource struct {
	*toolhost.Session
	fe *chatFrontEnd
}

func (s liveSource) NewTurn(ctx context.Context) (*dispatch.Turn, error) {
	t, err := s.Session.NewTurn(ctx)
	if err != nil {
		return nil, err
	}
	t.OnOutput = s.fe.output
	t.OnEvent = s.fe.progress
	return t, nil
}

// chatFrontEnd is the chat's terminal printer (termsession.Chat, which
// the small front end's session shows turns with too) as the loop's
// front end: it adds the approver the loop asks.
type chatFrontEnd struct {
	*termsession.Chat
	approver approval.Provider
}

func (f *chatFrontEnd) Approver() approval.Provider { return f.approver }

// output shows a running call's (redacted) output.
func (f *chatFrontEnd) output(callID, stream string, text string) { f.Output(callID, stream, text) }

func (f *chatFrontEnd) progress(_ string, ev dispatch.Event) {
	f.Progress("", ev.Progress, ev.Fraction)
}

var _ termsession.HostView = (*chatFrontEnd)(nil)
var _ termsession.EditorView = (*acpSession)(nil)

// usageReport is /usage: the session's tokens so far.
func (f *chatFrontEnd) usageReport(session string) string { return f.UsageReport(session) }

var _ turn.Source = liveSource{}
