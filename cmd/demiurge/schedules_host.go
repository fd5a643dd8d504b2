package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/urfave/cli/v2"

	"demiurge.dev/host/agents"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/policy"
	"demiurge.dev/host/providers"
	"demiurge.dev/host/schedule"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/host/turn"
)

// scheduledPreamble tells a scheduled run's model what it is.
const scheduledPreamble = "[scheduled run %s of schedule %s] No one is present: you cannot ask questions, and only the calls the operator approved in advance for this schedule are allowed; any other is denied. Do the work with your tools and end with your answer, which is recorded.\n\n"

// startScheduler makes the long-lived host's scheduler: its store is the
// host's, its runs are headless turns of the host's core in sessions of
// their own, judged by their lease, with the model the host was started
// with (--model / DEMIURGE_MODEL and its key from the host's own
// environment: a schedule has no front end to ask).
func startScheduler(c *cli.Context, h *toolhost.Host) (*schedule.Manager, error) {
	store, err := h.Store()
	if err != nil {
		return nil, err
	}
	flags := modelFlagsOf(c)
	env := &hostScheduleEnv{h: h}
	eng := &schedule.Engine{Store: schedule.NewStore(store), Clock: schedule.WallClock{}, Exclusive: true}
	eng.Check = func(sc schedule.Schedule, now time.Time) string {
		if known, ids := env.CoreKnown(sc.CoreID); !known {
			return fmt.Sprintf("core %q does not exist in this host (known: %v)", sc.CoreID, ids)
		}
		rev, cat, err := env.Binding(sc.CoreID)
		if err != nil {
			return "the core's catalog cannot be resolved: " + err.Error()
		}
		return schedule.CheckLease(sc, now, rev, cat, env.Workspace())
	}
	eng.Exec = func(ctx context.Context, sc schedule.Schedule, run schedule.Run) schedule.Result {
		return runScheduled(ctx, env, flags, sc, run)
	}
	m := &schedule.Manager{Store: eng.Store, Engine: eng, Env: env}
	h.SetScheduleManager(func(ctx context.Context, s *toolhost.Session, call dispatch.ScheduleCall) (string, error) {
		out, err := m.HandleTool(ctx, schedule.Caller{Principal: s.Authority().Principal, Session: s.ID(), Unattended: s.Unattended()}, call.Args)
		if schedule.Refused(err) {
			err = fmt.Errorf("%w: %w", plugins.ErrScheduleRefused, err)
		}
		return out, err
	})
	if err := eng.Start(c.Context); err != nil {
		return nil, err
	}
	return m, nil
}

// hostScheduleEnv is the host as schedules are checked against it.
type hostScheduleEnv struct{ h *toolhost.Host }

// coreName is the host's core id; an unversioned core (--core DIR) is
// "default".
func (e *hostScheduleEnv) coreName() string {
	if id := e.h.Session().CoreID(); id != "" {
		return id
	}
	return "default"
}

// CoreKnown: a scheduled run runs the host's own core or another core of
// the core repository's revision the host runs (toolhost.CoreHost); a
// plain --core directory knows only itself. ids are the ones there are.
func (e *hostScheduleEnv) CoreKnown(id string) (bool, []string) {
	ids, err := e.h.RevisionCores()
	if err != nil || len(ids) == 0 {
		ids = []string{e.coreName()}
	}
	return slices.Contains(ids, id), ids
}

func (e *hostScheduleEnv) DefaultCore() string { return e.coreName() }

// hostFor is the host a schedule of core id runs on: the host itself for
// its own core, else that core's host (its own plugins, catalog and
// pipeline, over this host's store, tasks and spawn gate).
func (e *hostScheduleEnv) hostFor(id string) (*toolhost.Host, error) {
	if id == e.coreName() {
		return e.h, nil
	}
	return e.h.CoreHost(id)
}

func (e *hostScheduleEnv) ToolKnown(core, tool string) bool {
	h, err := e.hostFor(core)
	if err != nil {
		return false
	}
	cat, err := h.Catalog(context.Background())
	if err != nil {
		return false
	}
	_, ok := cat.Lookup(tool)
	return ok
}

// Workspace is the host's workspace, which a lease is approved for.
func (e *hostScheduleEnv) Workspace() string { return e.h.Workspace.Root }

// Binding is what a lease of core id is bound to: that core's revision
// and catalog.
func (e *hostScheduleEnv) Binding(id string) (string, string, error) {
	h, err := e.hostFor(id)
	if err != nil {
		return "", "", err
	}
	cat, err := h.Catalog(context.Background())
	if err != nil {
		return "", "", err
	}
	return h.Core.Revision, cat.Fingerprint(), nil
}

// runScheduled runs one scheduled run as a headless turn.
//
// Its model is the host's, never a front end's: the host's own --model /
// DEMIURGE_MODEL (and the key from the host's environment), else the
// `model:` of the schedule's core. A schedule of another core runs on
// that core's host (hostFor), its tools and catalog that core's.
func runScheduled(ctx context.Context, env *hostScheduleEnv, flags modelFlagValues, sc schedule.Schedule, run schedule.Run) schedule.Result {
	h := env.h
	ch, err := env.hostFor(sc.CoreID)
	if err != nil {
		return schedule.Result{Outcome: schedule.OutcomeBlocked, Reason: err.Error()}
	}
	// A child of no one, through the one spawn gate: counted by its
	// limits (a run past them waits for a slot), its lease the judge of
	// it and of its children.
	gate, _ := spawnGateOf(h)
	root, err := gate.SpawnRoot(ctx, agents.RootRequest{Host: ch, Principal: sc.Principal, Tools: schedule.RunTools(sc),
		Judge: sc.Lease.Judge, Label: "schedule " + sc.ID + " run " + run.ID})
	if err != nil {
		return schedule.Result{Outcome: schedule.OutcomeCancelled, Reason: err.Error()}
	}
	defer root.End()
	ses := root.Session
	res := schedule.Result{Session: ses.ID()}
	model, cfg, err := openModelOf(flags, ch.Core.Model, os.Getenv)
	if err != nil {
		res.Outcome, res.Reason = schedule.OutcomeError, "the host has no model for scheduled runs: "+err.Error()
		return res
	}
	store, err := h.Store()
	if err != nil {
		res.Outcome, res.Reason = schedule.OutcomeError, err.Error()
		return res
	}
	bp := &runBudget{Provider: model, limit: int64(sc.Budget.OutputTokens)}
	loop := &turn.Loop{Provider: bp, Session: ses, Store: store, MaxSteps: sc.Budget.Steps,
		System: fmt.Sprintf(scheduledPreamble, run.ID, sc.ID) + systemPrompt, Instructions: agentInstructionsFor(ch, ses),
		MaxOutputTokens: cfg.MaxOutputTokens, Temperature: cfg.Temperature}
	defer loop.Close()
	// Its children run within its lease (toolhost: a child inherits it).
	release := installSpawnGate(h, ses, func(child *toolhost.Session) (*turn.Loop, error) {
		return &turn.Loop{Provider: bp, Session: child, Store: store, System: systemPrompt,
			MaxOutputTokens: cfg.MaxOutputTokens, Temperature: cfg.Temperature}, nil
	})
	defer release()
	tr, err := loop.Run(ctx, sc.Prompt, unattendedFrontEnd{})
	res.Answer = tr.Text
	if t := bp.first.Load(); t != nil {
		res.FirstRequest = *t
	}
	switch {
	case bp.hit.Load() || tr.Status == turn.StatusStepCap:
		res.Outcome, res.Reason = schedule.OutcomeBudgetExceeded, fmt.Sprintf("the run used its budget (%d steps, %d output tokens)", sc.Budget.Steps, sc.Budget.OutputTokens)
	case tr.Status == turn.StatusCancelled || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded):
		res.Outcome = schedule.OutcomeCancelled // the engine says timeout or why
	case err != nil:
		res.Outcome, res.Reason = schedule.OutcomeError, err.Error()
	case tr.Status == turn.StatusDone:
		res.Outcome = schedule.OutcomeOK
	default:
		res.Outcome, res.Reason = schedule.OutcomeError, "the turn ended "+string(tr.Status)
	}
	if res.Outcome == schedule.OutcomeOK && sc.ResultFile != "" {
		if why := writeResultFile(sc, tr.Text, h.Workspace, ch.Workspace); why != "" {
			res.Outcome, res.Reason = schedule.OutcomeError, why
		}
	}
	return res
}

// writeResultFile writes a run's answer to its result file: only within
// the lease's paths, and through os.Root, so no symlink leads it out of
// the workspace. The host writes it, not a tool call, so it is judged here
// as the run's own writes are (approval.Resolver's unattended step): never
// the core (the host's or the schedule's), git's program-running files or
// the state and configuration directories, whatever the lease's paths say
// (a lease of `./**` covers .git/config).
func writeResultFile(sc schedule.Schedule, answer string, ws, runCore policy.Workspace) string {
	if !sc.Lease.CoversPath(sc.ResultFile) {
		return fmt.Sprintf("result_file %q is outside the lease's paths; the answer is in the run's session only", sc.ResultFile)
	}
	workspace := ws.Root
	abs := filepath.Join(workspace, filepath.FromSlash(sc.ResultFile))
	for _, g := range []policy.Workspace{ws, runCore} {
		why := g.ProtectedWhy(abs)
		if why == "" && g.InState(abs) {
			why = "it lies in the host's state or configuration directory"
		}
		if why != "" {
			return fmt.Sprintf("result_file %q is refused: %s; a scheduled run never writes it, and the answer is in the run's session only", sc.ResultFile, why)
		}
	}
	root, err := os.OpenRoot(workspace)
	if err != nil {
		return "result_file: " + err.Error()
	}
	defer root.Close()
	if dir := filepath.Dir(sc.ResultFile); dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return "result_file: " + err.Error()
		}
	}
	if err := root.WriteFile(sc.ResultFile, []byte(answer+"\n"), 0o644); err != nil {
		return "result_file: " + err.Error()
	}
	return ""
}

// unattendedFrontEnd is a scheduled run's front end: no one sees it, no
// one answers (the lease decides every call before a provider would be
// asked), and clarify says no one is present.
type unattendedFrontEnd struct{}

func (unattendedFrontEnd) Show(turn.Event)             {}
func (unattendedFrontEnd) Approver() approval.Provider { return approval.DenyAll{} }
func (unattendedFrontEnd) Clarify(context.Context, string, []string) (string, bool, error) {
	return "", false, nil
}

// runBudget counts a run's output tokens across its steps and refuses the
// step after they are spent.
type runBudget struct {
	providers.Provider
	limit int64
	used  atomic.Int64
	hit   atomic.Bool
	first atomic.Pointer[time.Time]
	once  sync.Once
}

var errRunBudget = errors.New("the scheduled run's output-token budget is spent")

func (b *runBudget) Stream(ctx context.Context, req providers.Request, onDelta func(providers.Delta)) (providers.Reply, error) {
	b.once.Do(func() {
		now := time.Now()
		b.first.Store(&now)
	})
	left := b.limit - b.used.Load()
	if b.limit > 0 && left <= 0 {
		b.hit.Store(true)
		return providers.Reply{}, fmt.Errorf("%w (%d output tokens)", errRunBudget, b.limit)
	}
	if b.limit > 0 && (req.MaxOutputTokens == 0 || int64(req.MaxOutputTokens) > left) {
		req.MaxOutputTokens = int(left)
	}
	reply, err := b.Provider.Stream(ctx, req, onDelta)
	b.used.Add(reply.Usage.OutputTokens)
	return reply, err
}
