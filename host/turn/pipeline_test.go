package turn_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"demiurge.dev/host/plugins/plugintest"
	"demiurge.dev/host/providers"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/host/turn"
)

var authoredOnce sync.Once

// slotFixture opens a host over a core whose pipelines.yaml runs real
// Python slots: input [tag, [note, raises]] and output [shout].
func slotFixture(t testing.TB, model *script, outputSlot string) (*toolhost.Host, *turn.Loop) {
	return pipelineFixture(t, model, "input: [tag, [note, raises]]\noutput: ["+outputSlot+"]\n")
}

func pipelineFixture(t testing.TB, model *script, pipelines string) (*toolhost.Host, *turn.Loop) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"agent.yaml":              "capabilities: [fs.read]\n",
		"pipelines.yaml":          pipelines,
		"slots/tag/slot.yaml":     "description: adds context\n",
		"slots/tag/module.py":     "def run(ctx, args):\n    return {'context': 'tagged ' + args['text'], 'replace': args['text'] + '!'}\n",
		"slots/note/slot.yaml":    "default_placement: system\n",
		"slots/note/module.py":    "def run(ctx, args):\n    return {'context': 'note for ' + args['text']}\n",
		"slots/raises/slot.yaml":  "failure_policy: skip\n",
		"slots/raises/module.py":  "def run(ctx, args):\n    raise RuntimeError('flaky')\n",
		"slots/shout/slot.yaml":   "description: upper-cases\n",
		"slots/shout/module.py":   "def run(ctx, args):\n    return {'replace': args['text'].upper()}\n",
		"slots/gate/slot.yaml":    "description: refuses\n",
		"slots/nop_in/slot.yaml":  "description: does nothing\n",
		"slots/nop_in/module.py":  "def run(ctx, args):\n    return None\n",
		"slots/nop_out/slot.yaml": "description: does nothing\n",
		"slots/nop_out/module.py": "def run(ctx, args):\n    return None\n",
		"slots/gate/module.py":    "def run(ctx, args):\n    return {'refuse': 'the answer names a secret'}\n",
		"slots/keeper/slot.yaml":  "history_policy: keep\nentrypoint: module:remember\n",
		"slots/keeper/module.py":  "def remember(ctx, args):\n    return {'context': 'kept for ' + args['text']}\n",
		"slots/boot/slot.yaml":    "description: a bootstrap part\n",
		"slots/boot/module.py":    "def run(ctx, args):\n    return {'context': 'booted'}\n",
	}
	h, loop, _ := openSlotCore(t, model, dir, files)
	return h, loop
}

// openSlotCore writes files into the core directory dir and opens a host
// over it with a fresh workspace (returned) and state.
func openSlotCore(t testing.TB, model *script, dir string, files map[string]string) (*toolhost.Host, *turn.Loop, string) {
	t.Helper()
	var err error
	authoredOnce.Do(func() {
		err = plugintest.BuildOrCopy(pluginDir, toolhost.AuthoredToolset, "demiurge.dev/plugins/authored")
	})
	if err != nil {
		t.Fatal(err)
	}
	for name, body := range files {
		// A slot that sets no timeout_seconds gets 120 s, not the default
		// 10: its first run starts the authored runtime and its Python
		// worker in the sandbox, which under make race (eight packages on
		// two cores) took longer, and the turn failed with "did not finish
		// within timeout_seconds (10s)".
		if strings.HasSuffix(name, "/slot.yaml") && !strings.Contains(body, "timeout_seconds:") {
			body += "timeout_seconds: 120\n"
		}
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	ws := t.TempDir()
	h, err := toolhost.Open(toolhost.Options{CoreDir: dir, Workspace: ws, StateDir: t.TempDir(), BuiltinPluginDir: pluginDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	store, err := h.Store()
	if err != nil {
		t.Fatal(err)
	}
	loop := &turn.Loop{Provider: model, Session: h.Session(), Store: store, System: "You are a test agent."}
	t.Cleanup(loop.Close)
	return h, loop, ws
}

// An input slot's context reaches the request (message block, system
// text), its replacement is the stored message, a failing skip slot is
// told to the front end; an output slot's replacement is what the front
// end prints, and the answer is not streamed before it.
func TestPipelineSlotsChangeTheTurn(t *testing.T) {
	model := &script{step: func(n int, req providers.Request) (providers.Reply, error) {
		return providers.Reply{Text: "the answer", Stop: providers.StopEndTurn}, nil
	}}
	_, loop := slotFixture(t, model, "shout")
	fe := &recorder{}
	res, err := loop.Run(context.Background(), "hello", fe)
	if err != nil || res.Status != turn.StatusDone {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	req := model.reqs[0]
	last := req.Messages[len(req.Messages)-1]
	if !strings.Contains(last.Text, "tagged hello") || !strings.HasSuffix(last.Text, "\n\nhello!") {
		t.Errorf("the user message in the request = %q; want tag's context before the replaced message", last.Text)
	}
	if !strings.Contains(req.System, "note for hello") {
		t.Errorf("system text = %q; want note's context (placement system)", req.System)
	}
	hist, err := loop.History()
	if err != nil || len(hist) == 0 || hist[0].Text != "hello!" {
		t.Errorf("stored history = %+v, %v; want the replaced message without tag's context (history_policy turn)", hist, err)
	}
	var printed []string
	for _, ev := range fe.of(turn.EventTextDelta) {
		printed = append(printed, ev.Text)
	}
	if strings.Join(printed, "") != "THE ANSWER" || res.Text != "THE ANSWER" {
		t.Errorf("front end printed %q (result %q); want only the output slot's replacement", printed, res.Text)
	}
	var notices []string
	for _, ev := range fe.of(turn.EventNotice) {
		notices = append(notices, ev.Text)
	}
	if n := strings.Join(notices, "\n"); !strings.Contains(n, "raises: raises raised RuntimeError: flaky") {
		t.Errorf("notices = %q; want the skipped slot told", n)
	}
}

// An output slot's refusal ends the turn with its reason; the answer is
// never printed.
func TestPipelineOutputRefusalEndsTheTurn(t *testing.T) {
	model := &script{step: func(n int, req providers.Request) (providers.Reply, error) {
		return providers.Reply{Text: "the password is hunter2", Stop: providers.StopEndTurn}, nil
	}}
	_, loop := slotFixture(t, model, "gate")
	fe := &recorder{}
	res, err := loop.Run(context.Background(), "hello", fe)
	if err == nil || !strings.Contains(err.Error(), "pipeline slot gate refused: the answer names a secret") || res.Status != turn.StatusFailed {
		t.Errorf("Run = %+v, %v; want failed with gate's reason", res, err)
	}
	for _, ev := range fe.all() {
		if strings.Contains(ev.Text, "hunter2") {
			t.Errorf("the refused answer reached the front end: %+v", ev)
		}
	}
}

// history_policy keep stores a slot's message-placed context with the
// message it came with, so later turns (and a resumed session) replay it;
// history_policy turn reaches only its own turn's requests.
func TestHistoryPolicyKeepStoresTheContext(t *testing.T) {
	model := &script{step: func(n int, req providers.Request) (providers.Reply, error) {
		return providers.Reply{Text: "answer", Stop: providers.StopEndTurn}, nil
	}}
	h, loop := pipelineFixture(t, model, "input: [keeper, tag]\n")
	for _, prompt := range []string{"first", "second"} {
		if res, err := loop.Run(context.Background(), prompt, &recorder{}); err != nil || res.Status != turn.StatusDone {
			t.Fatalf("Run(%s) = %+v, %v", prompt, res, err)
		}
	}
	second := model.reqs[1].Messages
	if len(second) != 3 || second[0].Role != providers.RoleUser {
		t.Fatalf("second request: %+v", second)
	}
	// The first turn's message, replayed: keeper's block kept (it ran on
	// the message as typed), tag's (turn) gone; tag's replacement stored.
	if first := second[0].Text; !strings.Contains(first, `<pipeline-context slot="keeper">`+"\nkept for first\n") ||
		strings.Contains(first, "tagged first") || !strings.HasSuffix(first, "first!") {
		t.Errorf("the first message as replayed:\n%s", first)
	}
	// This turn's message carries both: keeper's stored, tag's for now.
	if last := second[2].Text; !strings.Contains(last, "kept for second") || !strings.Contains(last, "tagged second") {
		t.Errorf("the second message as sent:\n%s", last)
	}
	// A resumed session (a new loop over the same store) replays it too.
	store, _ := h.Store()
	resumed := &turn.Loop{Provider: model, Session: loop.Session, Store: store}
	t.Cleanup(resumed.Close)
	hist, err := resumed.History()
	if err != nil || len(hist) != 4 || !strings.Contains(hist[0].Text, "kept for first") || strings.Contains(hist[0].Text, "tagged") {
		t.Fatalf("resumed history: %+v, %v", hist, err)
	}
}
