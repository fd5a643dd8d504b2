package turn

import (
	"context"
	"fmt"
	"strings"

	"demiurge.dev/host/core"
	"demiurge.dev/host/pipeline"
	"demiurge.dev/host/providers"
)

// stager is a Source that runs its core's pipeline stages
// (toolhost.Session); nil when the core has no authored input or output
// slot.
type stager interface{ PipelineStages() pipeline.Stages }

// stages are the loop's pipeline stages: Loop.Stages, else the
// session's own, so that no entry point runs a turn without them.
func (l *Loop) stages() pipeline.Stages {
	if l.Stages != nil {
		return l.Stages
	}
	if s, ok := l.Session.(stager); ok {
		return s.PipelineStages()
	}
	return nil
}

// pipeState is what the input stage left for this turn's requests.
type pipeState struct {
	system  []string // placement system
	message string   // placement message, history_policy turn
	prompt  string   // the stored user message the message block goes before
}

// contextBlock marks text a slot added, so that the model can tell it
// from what the user wrote.
func contextBlock(c pipeline.Context) string {
	return fmt.Sprintf("<pipeline-context slot=%q>\n%s\n</pipeline-context>", c.Slot, c.Text)
}

// input runs the input stage over prompt and returns the message to store:
// a replacement, with history_policy keep contexts before it. A refusal or
// a failure under failure_policy fail ends the turn with the reason.
func (t *turnRun) input(ctx context.Context, prompt string) (string, error) {
	st := t.loop.stages()
	if st == nil {
		return prompt, nil
	}
	res, err := st.Input(ctx, prompt)
	if err != nil {
		return "", err
	}
	t.skipped(res)
	var kept, turnOnly []string
	for _, c := range res.Contexts {
		switch {
		case c.Placement == core.PlaceSystem:
			t.pipe.system = append(t.pipe.system, contextBlock(c))
		case c.Keep:
			kept = append(kept, contextBlock(c))
		default:
			turnOnly = append(turnOnly, contextBlock(c))
		}
	}
	stored := strings.Join(append(kept, res.Text), "\n\n")
	t.pipe.message, t.pipe.prompt = strings.Join(turnOnly, "\n\n"), stored
	return stored, nil
}

func (t *turnRun) skipped(res pipeline.Result) {
	for _, s := range res.Skipped {
		t.notice("pipeline slot skipped (failure_policy skip): %s", s)
	}
}

// withTurnContext puts this turn's message-placed contexts before the
// turn's user message in req, without storing them.
func (t *turnRun) withTurnContext(req providers.Request) providers.Request {
	if t.pipe.message == "" {
		return req
	}
	for i := len(req.Messages) - 1; i >= 0; i-- {
		if m := req.Messages[i]; m.Role == providers.RoleUser && m.Text == t.pipe.prompt {
			msgs := append([]providers.Message(nil), req.Messages...)
			msgs[i].Text = t.pipe.message + "\n\n" + m.Text
			req.Messages = msgs
			break
		}
	}
	return req
}

// output runs the output stage over the final answer and returns the
// answer the front end gets. Output contexts are shown as notices after
// the answer (there is no later model request for them to reach).
func (t *turnRun) output(ctx context.Context, answer string) (string, []string, error) {
	st := t.loop.stages()
	if st == nil || !st.HasOutput() {
		return answer, nil, nil
	}
	res, err := st.Output(ctx, answer)
	if err != nil {
		return "", nil, err
	}
	t.skipped(res)
	var notes []string
	for _, c := range res.Contexts {
		notes = append(notes, fmt.Sprintf("%s: %s", c.Slot, c.Text))
	}
	return res.Text, notes, nil
}

// release shows a held reply: a final answer after the output stage (its
// change applied, a refusal or failure ending the turn), an intermediate
// one as it is.
func (t *turnRun) release(ctx context.Context, text *string, final bool) error {
	var notes []string
	if final {
		out, n, err := t.output(ctx, *text)
		if err != nil {
			return err
		}
		*text, notes = out, n
	}
	if *text != "" {
		t.show(Event{Type: EventTextDelta, Text: *text})
	}
	for _, n := range notes {
		t.notice("pipeline context: %s", n)
	}
	return nil
}
