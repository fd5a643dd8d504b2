package turn

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/runtime"
	"demiurge.dev/host/untrusted"
)

// completionState is the loop's queue of background-completion turns.
type completionState struct {
	seen    map[string]bool
	pending []runtime.Task
	working bool
	closed  bool
	ctx     context.Context
	cancel  context.CancelFunc
	wg      sync.WaitGroup
}

// TaskEnded tells the loop that a background task ended (the host's task
// completion hook; call it from any goroutine). A task of this loop's
// session whose end no yield_until consumed starts one completion turn in
// the session, once, after the foreground turn that may be running: that
// turn's yield_until may still consume it. The turn is shown to
// Completions.
func (l *Loop) TaskEnded(task runtime.Task) {
	if l.Session == nil || task.Session != l.Session.ID() || !task.State.Terminal() {
		return
	}
	l.init()
	l.mu.Lock()
	if l.bg.closed || l.bg.seen[task.ID] {
		l.mu.Unlock()
		return
	}
	if l.bg.seen == nil {
		l.bg.seen = map[string]bool{}
		l.bg.ctx, l.bg.cancel = context.WithCancel(context.Background())
	}
	l.bg.seen[task.ID] = true
	l.bg.pending = append(l.bg.pending, task)
	start := !l.bg.working
	l.bg.working = true
	l.mu.Unlock()
	if start {
		l.bg.wg.Go(l.drainCompletions)
	}
}

// Close cancels a running completion turn, drops the queued ones and
// waits until none runs. The foreground Run is the caller's to cancel.
func (l *Loop) Close() {
	l.mu.Lock()
	l.bg.closed = true
	l.bg.pending = nil
	cancel := l.bg.cancel
	l.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	l.bg.wg.Wait()
}

// Drain waits until the queued completion turns have run (or were
// skipped because a yield_until consumed their task's end).
func (l *Loop) Drain() { l.bg.wg.Wait() }

func (l *Loop) drainCompletions() {
	for {
		l.mu.Lock()
		if len(l.bg.pending) == 0 || l.bg.closed {
			l.bg.working = false
			l.mu.Unlock()
			return
		}
		task := l.bg.pending[0]
		l.bg.pending = l.bg.pending[1:]
		ctx := l.bg.ctx
		l.mu.Unlock()
		select {
		case l.running <- struct{}{}:
		case <-ctx.Done():
			continue
		}
		if prompt, ok := l.completionText(ctx, task); ok {
			_, _ = l.runLocked(ctx, prompt, l.Completions)
		}
		<-l.running
	}
}

// completionText is the completion turn's message for task's end, ok
// false when a yield_until gave the model this end already (the
// session's task machinery says) or no turn can run now. The message is
// redacted as the session's views are: a child's answer is model text
// that may hold a value its views hid (stop 50).
func (l *Loop) completionText(ctx context.Context, task runtime.Task) (string, bool) {
	dt, err := l.Session.NewTurn(ctx)
	if err != nil {
		// No turn can run now: nothing to report the end in.
		return "", false
	}
	if dt.Background != nil && dt.Background.Completions != nil && dt.Background.Completions.Consumed(task.ID) {
		return "", false
	}
	return dt.RedactText(completionPrompt(task)), true
}

// completionPrompt tells the model of a task's end, with the bounded
// status fields the task tools show it and nothing else.
func completionPrompt(t runtime.Task) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[background task ended] Task %s (%s", t.ID, t.Tool)
	if t.Summary != "" {
		fmt.Fprintf(&b, ": %s", bounded(t.Summary, 200))
	}
	fmt.Fprintf(&b, ") ended: state %s", t.State)
	if t.ExitReason != "" {
		fmt.Fprintf(&b, ", exit reason %s", bounded(t.ExitReason, 64))
	}
	if t.ReturnCode != nil {
		fmt.Fprintf(&b, ", return code %d", *t.ReturnCode)
	}
	if t.Tool == "agent.spawn" && t.Result != "" {
		// The child's model wrote it after reading what this session
		// never saw: it comes as untrusted output, screened, never as
		// the host's words in this message.
		var meta struct {
			AgentID string `json:"agent_id"`
		}
		_ = json.Unmarshal(t.Agent, &meta)
		answer := dispatch.WrapChildAnswer(untrusted.NewBoundary(), meta.AgentID, bounded(t.Result, dispatch.MaxChildAnswer))
		fmt.Fprintf(&b, ". The child's answer, from outside:\n%s\n", answer)
		b.WriteString("Report the outcome to the operator and go on if the task's end calls for it; task_status shows its details.")
		return b.String()
	}
	b.WriteString(". Report the outcome to the operator and go on if the task's end calls for it; task_status shows its details.")
	return b.String()
}
