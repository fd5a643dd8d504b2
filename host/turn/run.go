package turn

import (
	"context"
	"fmt"
	"strings"
	"sync/atomic"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/providers"
	"demiurge.dev/host/runtime"
)

// turnRun is one turn in progress.
type turnRun struct {
	loop    *Loop
	fe      FrontEnd
	id      string
	session string
	res     Result
	// calls counts the tool calls of the whole turn (dispatch's cap).
	calls atomic.Int64
	pipe  pipeState
	// boundary bounds the envelopes of untrusted output in every step of
	// the turn (dispatch/untrusted.go): random, drawn when the turn starts.
	boundary string
}

func (t *turnRun) show(ev Event) {
	if t.fe == nil {
		return
	}
	ev.Session, ev.Turn = t.session, t.id
	t.fe.Show(ev)
}

func (t *turnRun) notice(format string, args ...any) {
	t.show(Event{Type: EventNotice, Text: fmt.Sprintf(format, args...)})
}

// append stores msgs as the session's next messages and adds them to the
// loop's history. It does not stop for a cancelled ctx: what the turn said
// is recorded even while it is being cancelled.
func (t *turnRun) append(ctx context.Context, msgs ...runtime.MessageRecord) error {
	return t.store(ctx, t.loop.Store.AppendMessages, msgs)
}

// store writes msgs as this turn's with write (append or submit) and adds
// what was stored to the loop's history.
func (t *turnRun) store(ctx context.Context, write func(context.Context, string, []runtime.MessageRecord) ([]runtime.MessageRecord, error), msgs []runtime.MessageRecord) error {
	for i := range msgs {
		msgs[i].Turn = t.id
	}
	stored, err := write(context.WithoutCancel(ctx), t.session, msgs)
	if err != nil {
		return fmt.Errorf("the conversation could not be stored: %w", err)
	}
	decoded, err := decodeAll(stored)
	if err != nil {
		return err
	}
	t.loop.mu.Lock()
	t.loop.history = append(t.loop.history, stored...)
	t.loop.decoded = append(t.loop.decoded, decoded...)
	// A reply's calls are in loop.callIDs already: normaliseCalls put
	// them there.
	t.loop.mu.Unlock()
	return nil
}

// steps runs model steps until the turn ends.
func (t *turnRun) steps(ctx context.Context) (Result, error) {
	for step := 1; ; step++ {
		if ctx.Err() != nil {
			return t.cancelled(ctx, "")
		}
		if step > t.loop.maxSteps() {
			t.notice("the step cap of %d model steps was hit; the turn ends here (raise it with --max-steps)", t.loop.maxSteps())
			return t.end(ctx, StatusStepCap, fmt.Sprintf("(the turn stopped at the step cap of %d model steps)", t.loop.maxSteps()), nil)
		}
		t.res.Steps = step
		dt, err := t.loop.Session.NewTurn(ctx)
		if err != nil {
			if ctx.Err() != nil {
				return t.cancelled(ctx, "")
			}
			return t.fail(ctx, fmt.Errorf("the turn's catalog could not be resolved: %w", err))
		}
		t.bind(dt)
		if step == 1 {
			t.announce(dt)
		}
		req, err := t.request(ctx, dt)
		if err != nil {
			if ctx.Err() != nil {
				return t.cancelled(ctx, "")
			}
			return t.fail(ctx, err)
		}
		var partial strings.Builder
		// With output slots the answer is held until they ran.
		st := t.loop.stages()
		held := st != nil && st.HasOutput()
		reply, err := t.loop.Provider.Stream(ctx, req, func(d providers.Delta) {
			if r := d.Retry; r != nil {
				t.show(Event{Type: EventRetry, Text: r.Why, EventDetail: EventDetail{Try: r.Try, Of: r.Of, WaitMS: r.Wait.Milliseconds()}})
				return
			}
			if d.Text == "" {
				return
			}
			partial.WriteString(d.Text)
			if !held {
				t.show(Event{Type: EventTextDelta, Text: d.Text})
			}
		})
		if err != nil {
			if ctx.Err() != nil {
				return t.cancelled(ctx, partial.String())
			}
			return t.fail(ctx, fmt.Errorf("the model step failed: %w", err))
		}
		t.addUsage(reply.Usage)
		u := reply.Usage
		t.show(Event{Type: EventUsage, Usage: &u})
		t.res.Text = reply.Text
		t.loop.mu.Lock()
		calls := normaliseCalls(reply.ToolCalls, t.loop.callIDs, t.id, step)
		t.loop.mu.Unlock()
		if held {
			if err := t.release(ctx, &reply.Text, len(calls) == 0); err != nil {
				return t.fail(ctx, err)
			}
			t.res.Text = reply.Text
		}
		store := t.append
		if len(calls) > 0 {
			store = t.submit // the calls' audit events commit it
		}
		if err := store(ctx, assistantRecord(reply.Text, calls, reply.Reasoning, reply.Usage)); err != nil {
			return t.fail(ctx, err)
		}
		if reply.Stop == providers.StopMaxTokens {
			t.notice("the model's reply was cut at the output limit (max_output_tokens %d)", t.loop.MaxOutputTokens)
			if len(calls) == 0 {
				return t.end(ctx, StatusFailed, "", fmt.Errorf("the model's reply passed the output limit (max_output_tokens %d); raise model.max_output_tokens or ask for less at once", t.loop.MaxOutputTokens))
			}
		}
		if len(calls) == 0 {
			return t.end(ctx, StatusDone, "", nil)
		}
		results := t.runStepCalls(ctx, dt, calls, reply.Stop)
		if err := t.submit(ctx, toolRecord(results)); err != nil {
			return t.fail(ctx, err)
		}
		if ctx.Err() != nil {
			return t.cancelled(ctx, "")
		}
	}
}

// bind gives the dispatch turn this front end's approver and clarify: a
// copy of the host's resolver, so rules and session allows still apply.
func (t *turnRun) bind(dt *dispatch.Turn) {
	var asker approval.Provider = approval.DenyAll{}
	if t.fe != nil {
		if a := t.fe.Approver(); a != nil {
			asker = a
		}
		dt.Clarify = t.fe.Clarify
	}
	dt.CallCount = &t.calls // the cap is the turn's, not the step's
	if dt.Boundary == "" {
		dt.Boundary = t.boundary
	}
	if d := dt.Delegate; d != nil {
		// The spawn gate counts children per model turn, not per step (a
		// step's dispatch turn has an id of its own), and gets this turn's
		// front end, to show children's events to it.
		fe, id := t.fe, t.id
		dt.Delegate = func(ctx context.Context, c dispatch.DelegateCall) (string, error) {
			c.Turn = id
			if fe != nil {
				c.FrontEnd = fe
			}
			return d(ctx, c)
		}
	}
	if c := dt.Core; c != nil && t.fe != nil {
		// evolve_core start's evolver is a child: its events and prompts
		// go to this turn's front end, as delegate_task's children's do.
		fe := t.fe
		dt.Core = func(ctx context.Context, call dispatch.CoreCall) (string, error) {
			call.FrontEnd = fe
			return c(ctx, call)
		}
	}
	r := approval.Resolver{}
	if dt.Approvals != nil {
		r = *dt.Approvals
	}
	r.Provider = asker
	dt.Approvals = &r
}

func (t *turnRun) addUsage(u providers.Usage) {
	t.res.Usage.InputTokens += u.InputTokens
	t.res.Usage.OutputTokens += u.OutputTokens
	t.res.Usage.CachedInputTokens += u.CachedInputTokens
	t.res.Usage.CacheWriteTokens += u.CacheWriteTokens
}

// cancelled records the turn as cancelled: what the model had streamed,
// and a closing note, so the next turn's history is valid.
func (t *turnRun) cancelled(ctx context.Context, partial string) (Result, error) {
	note := "(the operator cancelled this turn)"
	if partial != "" {
		note = partial + "\n" + note
	}
	t.notice("turn cancelled; background tasks go on")
	return t.end(ctx, StatusCancelled, note, nil)
}

func (t *turnRun) fail(ctx context.Context, err error) (Result, error) {
	return t.end(ctx, StatusFailed, "(this turn failed: "+shortError(err)+")", err)
}

// end closes the turn. A turn that did not end with the model's own reply
// gets a closing assistant message marked with its status (note), so the
// history a provider replays alternates as it must.
func (t *turnRun) end(ctx context.Context, status Status, note string, cause error) (Result, error) {
	t.res.Turn, t.res.Status = t.id, status
	if calls := t.pendingCalls(); len(calls) > 0 {
		// Calls the model asked for that never ran get a result saying so.
		results := make([]providers.ToolResult, len(calls))
		for i, c := range calls {
			results[i] = providers.ToolResult{CallID: c.ID, Name: c.Name, Content: "not run: the turn ended (" + string(status) + ") before this call", IsError: true}
		}
		if err := t.append(ctx, toolRecord(results)); err != nil && cause == nil {
			cause = err
		}
	}
	if status != StatusDone && note != "" && t.needsClose() {
		if err := t.append(ctx, runtime.MessageRecord{Role: string(providers.RoleAssistant), Text: note, Status: string(status)}); err != nil && cause == nil {
			cause = err
		}
	}
	ev := Event{Type: EventTurnEnd, Status: string(status)}
	if cause != nil {
		ev.Error = cause.Error()
	}
	t.show(ev)
	return t.res, cause
}

// needsClose reports whether the history does not end with an assistant
// message that has no pending tool calls.
func (t *turnRun) needsClose() bool {
	t.loop.mu.Lock()
	defer t.loop.mu.Unlock()
	n := len(t.loop.history)
	if n == 0 {
		return false
	}
	last := t.loop.history[n-1]
	return last.Role != string(providers.RoleAssistant) || len(last.ToolCalls) > 0
}

// pendingCalls are the tool calls of the history's last message when it is
// an assistant message whose results were never stored.
func (t *turnRun) pendingCalls() []providers.ToolCall {
	t.loop.mu.Lock()
	defer t.loop.mu.Unlock()
	n := len(t.loop.history)
	if n == 0 || t.loop.history[n-1].Role != string(providers.RoleAssistant) {
		return nil
	}
	calls, _ := decodeCalls(t.loop.history[n-1].ToolCalls)
	return calls
}

func shortError(err error) string {
	s := err.Error()
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}
