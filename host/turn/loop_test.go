package turn_test

import (
	"context"
	"demiurge.dev/host/untrusted"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/providers"
	"demiurge.dev/host/turn"
)

// A whole turn: the model reads a file through the real plugin, gets the
// model view back and answers; every event comes in order and the
// conversation is stored.
func TestTurnReadsAFileAndAnswers(t *testing.T) {
	model := &script{step: func(n int, req providers.Request) (providers.Reply, error) {
		switch n {
		case 1:
			return calls(call("c1", "read_file", `{"path":"notes.txt"}`)), nil
		default:
			res := lastResults(t, req)
			if !strings.Contains(res[0].Content, "the sky is green") || res[0].IsError {
				t.Errorf("read_file's model view = %+v", res[0])
			}
			return answer("The notes say the sky is green."), nil
		}
	}}
	f := newFixture(t, model)
	f.write(t, "notes.txt", "the sky is green\n")
	fe := &recorder{}
	res, err := f.loop.Run(context.Background(), "what do my notes say?", fe)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != turn.StatusDone || res.Steps != 2 || res.Text != "The notes say the sky is green." {
		t.Fatalf("result = %+v", res)
	}
	if got, want := fe.kinds(), "turn_start usage tool_call approval tool_result text_delta usage turn_end"; got != want {
		t.Fatalf("events = %s\nwant     %s", got, want)
	}
	if a := fe.of(turn.EventApproval)[0]; a.Decision != "auto" || a.Tool != "read_file" {
		t.Fatalf("approval event = %+v", a)
	}
	if c := fe.of(turn.EventToolCall)[0]; c.Card != `read_file {"path":"notes.txt"}` || c.CallID != "c1" {
		t.Fatalf("tool_call card = %+v", c)
	}
	for _, ev := range fe.all() {
		if ev.Session != f.h.Session().ID() || ev.Turn != res.Turn {
			t.Fatalf("event %+v is not of session %s turn %s", ev, f.h.Session().ID(), res.Turn)
		}
	}
	if got := roles(f.messages(t)); got != "user assistant tool assistant" {
		t.Fatalf("stored = %s", got)
	}
	// The tool definitions are the turn's resolution.
	var names []string
	for _, d := range model.requests()[0].Tools {
		names = append(names, d.Name)
	}
	if !strings.Contains(strings.Join(names, ","), "read_file") || !strings.Contains(strings.Join(names, ","), "yield_until") {
		t.Fatalf("tools sent = %v", names)
	}
}

// The model's bad calls come back as results it can repair; none of them
// reaches a plugin.
func TestBadCallsComeBackToTheModel(t *testing.T) {
	cases := []struct {
		name string
		call providers.ToolCall
		want string
	}{
		{"arguments cut off", call("c1", "read_file", `{"path":"notes.t`), "not valid JSON"},
		{"arguments an array", call("c1", "read_file", `["notes.txt"]`), "one JSON object"},
		{"misspelt tool", call("c1", "read_fiel", `{"path":"notes.txt"}`), `did you mean "read_file"`},
		{"unknown tool", call("c1", "launch_rockets", `{}`), "available tools:"},
		{"bad argument", call("c1", "read_file", `{"path":7}`), "path"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var seen providers.ToolResult
			model := &script{step: func(n int, req providers.Request) (providers.Reply, error) {
				if n == 1 {
					return calls(tc.call), nil
				}
				seen = lastResults(t, req)[0]
				return answer("ok"), nil
			}}
			f := newFixture(t, model)
			f.write(t, "notes.txt", "secret plans\n")
			fe := &recorder{}
			if _, err := f.loop.Run(context.Background(), "read my notes", fe); err != nil {
				t.Fatal(err)
			}
			if !seen.IsError || !strings.Contains(seen.Content, tc.want) || strings.Contains(seen.Content, "secret plans") {
				t.Fatalf("result = %+v, want an error with %q", seen, tc.want)
			}
			if seen.CallID != "c1" {
				t.Fatalf("result answers %q", seen.CallID)
			}
			if len(fe.of(turn.EventApproval)) != 0 {
				t.Fatalf("a bad call reached approval: %+v", fe.of(turn.EventApproval))
			}
		})
	}
}

// A model that calls a failing tool forever stops at the step cap, says
// so, and leaves a history the next turn can use.
func TestStepCap(t *testing.T) {
	model := &script{step: func(n int, req providers.Request) (providers.Reply, error) {
		return calls(call("", "read_file", `{"path":"missing.txt"}`)), nil
	}}
	f := newFixture(t, model)
	f.loop.MaxSteps = 3
	fe := &recorder{}
	res, err := f.loop.Run(context.Background(), "read missing.txt until it works", fe)
	if err != nil {
		t.Fatal(err)
	}
	if res.Status != turn.StatusStepCap || res.Steps != 3 || len(model.requests()) != 3 {
		t.Fatalf("result = %+v after %d requests", res, len(model.requests()))
	}
	notices := fe.of(turn.EventNotice)
	if len(notices) != 1 || !strings.Contains(notices[0].Text, "step cap of 3") {
		t.Fatalf("notices = %+v", notices)
	}
	end := fe.of(turn.EventTurnEnd)
	if len(end) != 1 || end[0].Status != "step_cap" {
		t.Fatalf("turn_end = %+v", end)
	}
	if got := roles(f.messages(t)); got != "user assistant tool assistant tool assistant tool assistant(step_cap)" {
		t.Fatalf("stored = %s", got)
	}
	model.step = func(n int, req providers.Request) (providers.Reply, error) {
		validHistory(t, req.Messages)
		return answer("giving up"), nil
	}
	if res, err := f.loop.Run(context.Background(), "stop it", fe); err != nil || res.Status != turn.StatusDone {
		t.Fatalf("next turn = %+v, %v", res, err)
	}
}

// Cancelling while the model streams cancels the turn only: it is
// recorded as cancelled with what had streamed, and the next turn sends a
// valid history.
func TestCancelWhileStreaming(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	model := &script{stream: func(sctx context.Context, n int, req providers.Request, onDelta func(providers.Delta)) (providers.Reply, error) {
		if n == 1 {
			onDelta(providers.Delta{Text: "Let me think"})
			cancel() // the operator's Ctrl-C, mid-stream
			<-sctx.Done()
			return providers.Reply{}, sctx.Err()
		}
		validHistory(t, req.Messages)
		last := req.Messages[len(req.Messages)-2]
		if last.Role != providers.RoleAssistant || !strings.Contains(last.Text, "Let me think") || !strings.Contains(last.Text, "cancelled") {
			t.Errorf("the cancelled turn replays as %+v", last)
		}
		onDelta(providers.Delta{Text: "again"})
		return answer("again"), nil
	}}
	f := newFixture(t, model)
	fe := &recorder{}
	res, err := f.loop.Run(ctx, "think hard", fe)
	if err != nil || res.Status != turn.StatusCancelled {
		t.Fatalf("cancelled turn = %+v, %v", res, err)
	}
	if end := fe.of(turn.EventTurnEnd); len(end) != 1 || end[0].Status != "cancelled" || end[0].Error != "" {
		t.Fatalf("turn_end = %+v", end)
	}
	if got := roles(f.messages(t)); got != "user assistant(cancelled)" {
		t.Fatalf("stored = %s", got)
	}
	res, err = f.loop.Run(context.Background(), "go on", fe)
	if err != nil || res.Status != turn.StatusDone {
		t.Fatalf("next turn = %+v, %v", res, err)
	}
}

// Cancelling while a batch waits for approval: every call gets a result,
// the turn is cancelled, and the next turn's history is valid.
func TestCancelDuringBatch(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	model := &script{step: func(n int, req providers.Request) (providers.Reply, error) {
		if n == 1 {
			return calls(call("w1", "write_file", `{"path":"a.txt","content":"A"}`), call("w2", "write_file", `{"path":"b.txt","content":"B"}`)), nil
		}
		validHistory(t, req.Messages)
		return answer("fine"), nil
	}}
	f := newFixture(t, model)
	asker := &answerer{answer: approval.Deny, onAsk: cancel}
	fe := &recorder{approver: asker}
	res, err := f.loop.Run(ctx, "write two files", fe)
	if err != nil || res.Status != turn.StatusCancelled {
		t.Fatalf("turn = %+v, %v", res, err)
	}
	if got := roles(f.messages(t)); got != "user assistant tool assistant(cancelled)" {
		t.Fatalf("stored = %s", got)
	}
	for _, name := range []string{"a.txt", "b.txt"} {
		if _, err := os.Stat(filepath.Join(f.workspace, name)); err == nil {
			t.Fatalf("%s was written by a cancelled turn", name)
		}
	}
	if _, err := f.loop.Run(context.Background(), "never mind", &recorder{}); err != nil {
		t.Fatal(err)
	}
}

// Approvals: a rule of the host decides without asking; else the front
// end's approver is asked; headless (deny) refuses.
func TestApprovalsInATurn(t *testing.T) {
	cases := []struct {
		name     string
		rules    []string
		answer   approval.Answer
		asked    int
		decision string
		written  bool
	}{
		{"rule allows", []string{"allow:write_file:notes/**"}, approval.Deny, 0, "allowed", true},
		{"operator allows", nil, approval.AllowOnce, 1, "allowed", true},
		{"operator denies", nil, approval.Deny, 1, "denied", false},
		{"deny rule wins over the operator", []string{"deny:write_file"}, approval.AllowOnce, 0, "denied", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			model := &script{step: func(n int, req providers.Request) (providers.Reply, error) {
				if n == 1 {
					return calls(call("w", "write_file", `{"path":"notes/todo.txt","content":"buy milk","create_dirs":true}`)), nil
				}
				return answer("done"), nil
			}}
			f := newFixture(t, model, tc.rules...)
			asker := &answerer{answer: tc.answer}
			fe := &recorder{approver: asker}
			if _, err := f.loop.Run(context.Background(), "note: buy milk", fe); err != nil {
				t.Fatal(err)
			}
			if asker.count() != tc.asked {
				t.Fatalf("asked %d times, want %d", asker.count(), tc.asked)
			}
			ap := fe.of(turn.EventApproval)
			if len(ap) != 1 || ap[0].Decision != tc.decision {
				t.Fatalf("approval events = %+v", ap)
			}
			b, err := os.ReadFile(filepath.Join(f.workspace, "notes", "todo.txt"))
			if tc.written != (err == nil && string(b) == "buy milk") {
				t.Fatalf("written = %q, %v; want written %v", b, err, tc.written)
			}
			res := fe.of(turn.EventToolResult)
			if len(res) != 1 || res[0].IsError == tc.written {
				t.Fatalf("tool_result events = %+v", res)
			}
		})
	}
}

// A provider error fails the turn with the error; the session goes on.
func TestProviderErrorFailsTheTurn(t *testing.T) {
	model := &script{step: func(n int, req providers.Request) (providers.Reply, error) {
		if n == 1 {
			return providers.Reply{}, errors.New("429 rate limited after 4 tries")
		}
		validHistory(t, req.Messages)
		return answer("back"), nil
	}}
	f := newFixture(t, model)
	fe := &recorder{}
	res, err := f.loop.Run(context.Background(), "hello", fe)
	if err == nil || !strings.Contains(err.Error(), "429") || res.Status != turn.StatusFailed {
		t.Fatalf("turn = %+v, %v", res, err)
	}
	if end := fe.of(turn.EventTurnEnd); len(end) != 1 || end[0].Status != "failed" || !strings.Contains(end[0].Error, "429") {
		t.Fatalf("turn_end = %+v", end)
	}
	if _, err := f.loop.Run(context.Background(), "hello again", fe); err != nil {
		t.Fatal(err)
	}
}

// A reply cut at the output limit is reported and fails the turn.
func TestReplyBeyondTheOutputLimit(t *testing.T) {
	model := &script{step: func(n int, req providers.Request) (providers.Reply, error) {
		return providers.Reply{Text: "Once upon a time, there was a very long", Stop: providers.StopMaxTokens}, nil
	}}
	f := newFixture(t, model)
	f.loop.MaxOutputTokens = 10
	fe := &recorder{}
	res, err := f.loop.Run(context.Background(), "tell me a long story", fe)
	if err == nil || !strings.Contains(err.Error(), "output limit") || res.Status != turn.StatusFailed {
		t.Fatalf("turn = %+v, %v", res, err)
	}
	if n := fe.of(turn.EventNotice); len(n) != 1 || !strings.Contains(n[0].Text, "max_output_tokens 10") {
		t.Fatalf("notices = %+v", n)
	}
}

// Resume: a loop over the same session in a new host continues with the
// history; the instruction hooks add to the system text at every step.
func TestResumeContinuesTheConversation(t *testing.T) {
	model := &script{step: func(n int, req providers.Request) (providers.Reply, error) {
		return answer("reply " + string(rune('0'+n))), nil
	}}
	f := newFixture(t, model)
	if _, err := f.loop.Run(context.Background(), "first", &recorder{}); err != nil {
		t.Fatal(err)
	}
	id := f.h.Session().ID()
	f.h.Close()
	f.open(t)
	s, err := f.h.ResumeSession(context.Background(), id)
	if err != nil {
		t.Fatal(err)
	}
	f.loop.Session = s
	f.loop.Instructions = []func(context.Context) (string, error){func(context.Context) (string, error) { return "Skills: none.", nil }}
	if _, err := f.loop.Run(context.Background(), "second", &recorder{}); err != nil {
		t.Fatal(err)
	}
	req := model.requests()[1]
	var texts []string
	for _, m := range req.Messages {
		texts = append(texts, m.Text)
	}
	if got := strings.Join(texts, "|"); got != "first|reply 1|second" {
		t.Fatalf("resumed history = %s", got)
	}
	// The default core has web_extract, whose results are wrapped: the
	// envelope's meaning comes last.
	if req.System != "You are a test agent.\n\nSkills: none.\n\n"+untrusted.Instructions {
		t.Fatalf("system = %q", req.System)
	}
}

func TestEmptyPromptAndNoProvider(t *testing.T) {
	f := newFixture(t, &script{step: func(int, providers.Request) (providers.Reply, error) { return answer("x"), nil }})
	if _, err := f.loop.Run(context.Background(), "  \n", &recorder{}); err == nil || !strings.Contains(err.Error(), "empty prompt") {
		t.Fatalf("empty prompt: %v", err)
	}
	l := &turn.Loop{Session: f.h.Session(), Store: f.store}
	if _, err := l.Run(context.Background(), "hi", &recorder{}); !errors.Is(err, turn.ErrNoProvider) {
		t.Fatalf("no provider: %v", err)
	}
	if n, _ := f.store.MessageCount(f.h.Session().ID()); n != 0 {
		t.Fatalf("%d messages stored for refused turns", n)
	}
}

// The step's calls are one ordered batch through dispatch: a read after a
// write of the same path sees the write, and the per-turn cap holds.
func TestBatchOrderAndCap(t *testing.T) {
	reads := []providers.ToolCall{call("w", "write_file", `{"path":"x.txt","content":"new text"}`), call("r", "read_file", `{"path":"x.txt"}`)}
	for i := len(reads); i < dispatch.DefaultMaxCalls+1; i++ {
		reads = append(reads, call(fmt.Sprintf("r%d", i), "read_file", `{"path":"x.txt"}`))
	}
	var got []providers.ToolResult
	model := &script{step: func(n int, req providers.Request) (providers.Reply, error) {
		if n == 1 {
			return calls(reads...), nil
		}
		got = lastResults(t, req)
		return answer("ok"), nil
	}}
	f := newFixture(t, model, "allow:write_file:x.txt")
	f.write(t, "x.txt", "old text\n")
	if _, err := f.loop.Run(context.Background(), "rewrite x.txt and read it", &recorder{}); err != nil {
		t.Fatal(err)
	}
	if len(got) != len(reads) {
		t.Fatalf("%d results for %d calls", len(got), len(reads))
	}
	if got[0].IsError || !strings.Contains(got[1].Content, "new text") {
		t.Fatalf("write then read = %+v / %+v", got[0], got[1])
	}
	last := got[len(got)-1]
	if !last.IsError || !strings.Contains(last.Content, "the most a turn may make") {
		t.Fatalf("call %d past the cap = %+v", len(got), last)
	}
	if got[len(got)-2].IsError {
		t.Fatalf("call %d within the cap failed: %+v", len(got)-1, got[len(got)-2])
	}
}

// recordingSource hands out the session's turns and keeps them.
type recordingSource struct {
	turn.Source
	turns []*dispatch.Turn
}

func (s *recordingSource) NewTurn(ctx context.Context) (*dispatch.Turn, error) {
	dt, err := s.Source.NewTurn(ctx)
	if err == nil {
		s.turns = append(s.turns, dt)
	}
	return dt, err
}

// Each step's dispatch turn asks the front end (approver and clarify) on
// a copy of the host's resolver: the host's own stays as it was. An
// instruction hook's error fails the turn before the model is asked.
func TestTurnBindsTheFrontEnd(t *testing.T) {
	model := &script{step: func(int, providers.Request) (providers.Reply, error) { return answer("hi"), nil }}
	f := newFixture(t, model)
	src := &recordingSource{Source: f.h.Session()}
	f.loop.Session = src
	asker := &answerer{answer: approval.AllowOnce}
	fe := &recorder{approver: asker, clarify: func(q string, _ []string) (string, bool) { return "yes to " + q, true }}
	hostProvider := f.h.Approvals.Provider
	if _, err := f.loop.Run(context.Background(), "hello", fe); err != nil {
		t.Fatal(err)
	}
	if len(src.turns) != 1 {
		t.Fatalf("%d dispatch turns for one step", len(src.turns))
	}
	dt := src.turns[0]
	if dt.Approvals == f.h.Approvals || dt.Approvals.Provider != approval.Provider(asker) || f.h.Approvals.Provider != hostProvider {
		t.Fatalf("resolver: turn %p (provider %v), host %p (provider %v)", dt.Approvals, dt.Approvals.Provider, f.h.Approvals, f.h.Approvals.Provider)
	}
	if len(dt.Approvals.Rules) != len(f.h.Approvals.Rules) || dt.Approvals.Sessions != f.h.Approvals.Sessions {
		t.Fatal("the turn's resolver lost the host's rules or session allows")
	}
	if a, ok, err := dt.Clarify(context.Background(), "go on?", nil); a != "yes to go on?" || !ok || err != nil {
		t.Fatalf("clarify = %q, %v, %v", a, ok, err)
	}
	f.loop.Instructions = []func(context.Context) (string, error){func(context.Context) (string, error) { return "", errors.New("skills index unreadable") }}
	res, err := f.loop.Run(context.Background(), "again", fe)
	if err == nil || !strings.Contains(err.Error(), "skills index unreadable") || res.Status != turn.StatusFailed || len(model.requests()) != 1 {
		t.Fatalf("turn with a failing hook = %+v, %v after %d requests", res, err, len(model.requests()))
	}
}
