package dispatch

import (
	"demiurge.dev/host/egress"

	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"demiurge.dev/catalog"
	"demiurge.dev/host/redact"
	"demiurge.dev/host/runtime"
	sharedredact "demiurge.dev/shared/redact"
	"demiurge.dev/shared/toolsetv1"
)

// Background runs the calls whose command subject asks for background:
// after the whole path up to approval, the call records a task and returns
// its id at once, and a goroutine the task manager owns consumes the
// plugin's stream. The tool does not know it runs in the background.
type Background struct {
	Tasks *runtime.TaskManager
	// Secrets returns every secret the host knows (target → value) beyond
	// those of the call itself; task output is redacted with all of them
	// before it is stored. Optional.
	Secrets func() map[string]string
	// Completions records the tasks whose end a yield_until already gave
	// the model; the host keeps one for all its turns. Optional.
	Completions *Completions
}

// argSecretBindings is the terminal contract's argument for secrets bound
// to one call; bindings are foreground-only.
const argSecretBindings = "secret_bindings"

// maxTaskResult bounds the final content a task record keeps.
const maxTaskResult = 16 << 10

// maxSummary bounds a task's command summary, in characters.
const maxSummary = 200

// taskCancelGrace is how long a cancelled task's plugin has to end the
// command and report its exit status: the terminal's TERM-to-KILL grace
// (2s) and its wait after KILL (5s), with room to spare. The record then
// has the return code of the process that was ended.
const taskCancelGrace = 10 * time.Second

// backgroundRequested reports whether a command subject's background
// argument is true.
func backgroundRequested(p *prepared) bool {
	if p.entry == nil {
		return false
	}
	if evolveBackground(p) {
		return true
	}
	for _, s := range p.entry.Spec.Subjects {
		if s.Kind == catalog.SubjectCommand && s.BackgroundArg != "" {
			if b, _ := p.args[s.BackgroundArg].(bool); b {
				return true
			}
		}
	}
	return false
}

// backgroundRefusal says why a background call cannot run, before anyone
// is asked to approve it; "" when it can (or is not a background call).
func (t *Turn) backgroundRefusal(p *prepared) string {
	if !backgroundRequested(p) {
		return ""
	}
	if t.Background == nil || t.Background.Tasks == nil {
		return fmt.Sprintf("%s: background runs are not available here; run it in the foreground (background: false)", p.call.Name)
	}
	if b, ok := p.args[argSecretBindings].([]any); ok && len(b) > 0 {
		return fmt.Sprintf("%s: secret_bindings are foreground-only; run the command in the foreground, or drop the bindings", p.call.Name)
	}
	return ""
}

// startBackground records the task, starts it and answers the call with its
// id. The task runs under the manager's context, not the caller's: it
// outlives the call.
func (t *Turn) startBackground(ctx context.Context, p *prepared, out Outcome, adapter Adapter, inv Invocation) Outcome {
	bound := map[string]string{}
	if t.Background.Secrets != nil {
		for k, v := range t.Background.Secrets() {
			bound[k] = v
		}
	}
	for k, v := range inv.Secrets {
		bound[k] = v
	}
	secrets := redact.Discover(p.args, bound)
	inv.Hooks = t.hooks(p, out.Approval)
	spec := runtime.TaskSpec{
		Principal: t.Authority.Principal, Session: t.Authority.Session,
		Tool: p.call.Name, CallID: p.call.ID, Summary: commandSummary(p, secrets),
		Sandbox: enforcedMode(inv),
	}
	px, apx := p.command.proxy(), p.authoredEgress
	task, err := t.Background.Tasks.Start(ctx, spec, func(tctx context.Context, sink *runtime.TaskOutput) runtime.TaskOutcome {
		for _, x := range []*egress.Proxy{px, apx} {
			if x != nil {
				defer x.Close() // the task's command has ended
			}
		}
		outcome := t.runTask(tctx, adapter, inv, secrets, sink)
		if px != nil {
			// The command has ended: what it reached is final (tasks show).
			px.Close()
			outcome.Network, _ = json.Marshal(connectionAudit(px.Events(), px.Folded()))
		}
		return outcome
	})
	if err != nil {
		p.command.closeEgress()
		p.closeAuthoredEgress()
		return t.finish(ctx, p, out, StatusFailed, errorResult(fmt.Sprintf("%s: the background task could not be started: %v", p.call.Name, err)))
	}
	structured, _ := json.Marshal(map[string]any{"task_id": task.ID, "state": task.State, "background": true})
	return t.finish(ctx, p, out, StatusOK, &toolsetv1.ToolResult{
		Content:    fmt.Sprintf("%s started in the background. Ask for its status or wait for it; its output is kept in the task log.", task.ID),
		Structured: structured,
	})
}

// runTask invokes the plugin and feeds the task: every output chunk is
// redacted again with every secret the host knows (a secret split across
// chunks included) before it is stored; artifacts must lie under the
// turn's artifact root and are recorded by their opaque reference.
func (t *Turn) runTask(ctx context.Context, adapter Adapter, inv Invocation, secrets []redact.Secret, sink *runtime.TaskOutput) runtime.TaskOutcome {
	pairs := make([]sharedredact.Secret, len(secrets))
	for i, s := range secrets {
		pairs[i] = sharedredact.Secret{Target: s.Target, Value: s.Value}
	}
	rep := sharedredact.NewReplacer(pairs)
	writers := map[string]*sharedredact.Writer{}
	var closers []*tokenLines
	inv.OnEvent = func(ev *toolsetv1.InvokeEvent) error {
		switch {
		case ev.GetOutput() != nil:
			stream := ev.GetOutput().GetStream()
			w := writers[stream]
			if w == nil {
				lines := &tokenLines{dst: taskStream{sink, stream}}
				w = rep.NewWriter(lines)
				writers[stream] = w
				closers = append(closers, lines)
			}
			_, err := w.Write(ev.GetOutput().GetData())
			return err
		case ev.GetArtifact() != nil:
			// The artifact of a cancelled task's last moments is still
			// recorded: ctx may already be done.
			ref, err := t.registerArtifact(context.WithoutCancel(ctx), "", inv.Tool, sink.ID(), ev.GetArtifact())
			if err != nil {
				return err
			}
			sink.Artifact(ref)
		}
		return nil
	}
	if inv.Env != nil {
		// Marks every process of the task, so that the next host can end
		// those that outlive a crash.
		inv.Env = append(slices.Clip(inv.Env), runtime.TaskEnvVar+"="+sink.ID())
	}
	inv.CancelGrace = taskCancelGrace
	res, err := adapter.Invoke(ctx, inv)
	for _, w := range writers {
		if cerr := w.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	for _, l := range closers {
		if cerr := l.Close(); cerr != nil && err == nil {
			err = cerr
		}
	}
	if err != nil {
		return runtime.TaskOutcome{Failed: true, ExitReason: runtime.ExitReasonError, Result: redactText(err.Error(), secrets)}
	}
	return taskOutcome(res, secrets)
}

// commandSummary is the command the task runs, redacted and bounded.
func commandSummary(p *prepared, secrets []redact.Secret) string {
	for _, s := range p.entry.Spec.Subjects {
		if s.Kind == catalog.SubjectCommand {
			if c, ok := p.args[s.Arg].(string); ok {
				return printableShort(redactText(c, secrets), maxSummary)
			}
		}
	}
	return p.call.Name
}

// redactText applies the exact secrets and the well-known token formats,
// as the model view does.
func redactText(s string, secrets []redact.Secret) string {
	if s == "" {
		return ""
	}
	return redact.Make(redact.Raw{Content: s}, secrets).Model.String()
}

// printableShort puts text on one line without control characters and
// bounds it.
func printableShort(s string, limit int) string {
	var b strings.Builder
	n := 0
	for _, r := range s {
		if n == limit {
			b.WriteString("…")
			break
		}
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) {
			r = ' '
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}
