package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/host/providers/providertest"
)

// TestSessionIsTheFrontEnds: with a host of the same options running,
// the interactive session (no command; lines on standard input) is the
// small front end's, byte for byte as the full CLI's session through the
// host (the same code, termsession): the banner, /help, /tools, /call
// (a read and a call denied from a pipe), /approvals, /tasks,
// /subagents, /session, /usage, an unknown command, chat without a
// model, and a chat turn with one; then again with the full host binary
// replaced by a stub that must not run. A flag value the full CLI
// refuses and DEMIURGE_HOST=off reach the full host.
func TestSessionIsTheFrontEnds(t *testing.T) {
	r := newRig(t)
	tools := strings.Join([]string{"/help", "/tools quiet", `/call read_file {"path":"words.txt"}`, `/call terminal {"command":"echo hi"}`,
		"/approvals", "/approvals revoke 1", "/tasks", "/tasks show nope", "/subagents", "/session", "/usage", "/stopp", "hello", "/quit"}, "\n") + "\n"
	chat := "what do the words say?\n/usage\n"
	steps := `{"tool_calls": [{"id": "c1", "name": "read_file", "arg_chunks": ["{\"path\":\"words.txt\"}"]}]},
		 {"text": ["The words: ", "one two <three>."], "usage": {"input_tokens": 12, "output_tokens": 5}}`
	// The model answers the chat through the launcher, the full host,
	// and the launcher with the host stubbed.
	parsed, err := providertest.ParseScript([]byte("[" + strings.Join([]string{steps, steps, steps}, ",") + "]"))
	if err != nil {
		t.Fatal(err)
	}
	model := providertest.NewServer("openai", parsed)
	defer model.Close()
	env := []string{"OPENAI_API_KEY=sk-test-openai-0123456789"}
	withModel := []string{"--state", r.state, "--model", "openai:gpt-test", "--base-url", model.URL + "/v1"}
	plain := []string{"--state", r.state}
	r.startHost()
	type sessionCase struct {
		args  []string
		stdin string
	}
	cases := []sessionCase{{plain, tools}, {append([]string{"-q", "--tool-display", "full"}, plain...), "/tools\n/quit\n"}, {withModel, chat}}
	var fronts []result
	for _, c := range cases {
		l := blankRun(r.exec("demiurge", c.stdin, env, c.args...))
		h := blankRun(r.exec(HostBinary, c.stdin, env, c.args...))
		if l != h {
			t.Errorf("%q: the launcher and the host differ\nlauncher: %s\nhost: %s", c.args, l, h)
		}
		fronts = append(fronts, l)
	}
	if f := fronts[0]; f.code != 0 || !strings.Contains(f.stdout, "in the host (pid") || !strings.Contains(f.stdout, "commands:") ||
		!strings.Contains(f.stdout, "one two three") || !strings.Contains(f.stdout, "no model is configured") ||
		!strings.Contains(f.stdout, "did you mean \"/stop\"") || !strings.Contains(f.stdout, "[denied]") {
		t.Fatalf("the tool session: %s", f)
	}
	if f := fronts[2]; f.code != 0 || !strings.Contains(f.stdout, "chatting with openai:gpt-test") ||
		!strings.Contains(f.stdout, "The words: one two <three>.") || !strings.Contains(f.stdout, "this session: 12 in, 5 out over 1 turn(s)") {
		t.Fatalf("the chat: %s", f)
	}

	// Refused by the full CLI before a session opens: a model name it
	// cannot read, a display mode it does not know (a usage error, exit
	// 2, its text); the launcher hands these over and says the same.
	for _, flag := range [][]string{{"--model", "bogus:x"}, {"--tool-display", "loud"}} {
		args := append([]string{"--state", r.state}, flag...)
		l, h := r.exec("demiurge", "/quit\n", env, args...), r.exec(HostBinary, "/quit\n", env, args...)
		if l != h || l.code != 2 || l.stdout != "" || !strings.Contains(l.stderr, flag[0]) {
			t.Errorf("%q: the launcher and the host differ (want exit 2 naming %q)\nlauncher: %s\nhost: %s", flag, flag[0], l, h)
		}
	}

	marker := filepath.Join(t.TempDir(), "ran")
	renameStub(t, filepath.Join(r.bin, HostBinary), marker)
	for i, c := range cases {
		if res := blankRun(r.exec("demiurge", c.stdin, env, c.args...)); res != fronts[i] {
			t.Errorf("%q with the full host stubbed: %s\nwant %s", c.args, res, fronts[i])
		}
	}
	if _, err := os.Stat(marker); err == nil {
		t.Fatal("the full host ran for a session the front end answers")
	}
	for _, tc := range []struct {
		env  []string
		args []string
	}{
		{nil, []string{"--tool-display", "loud"}},
		{nil, []string{"--model", "openai:gpt-test"}}, // no key: the host refuses the open
		{nil, []string{"--model", "bogus:x"}},
		{nil, []string{"--core-id", "other"}},
		{nil, []string{"--workspace", t.TempDir()}},
		{[]string{"DEMIURGE_HOST=off"}, nil},
	} {
		r.reachesFullHost(marker, tc.env, append([]string{"--state", r.state}, tc.args...)...)
	}
}

// TestSessionHostDies: the host killed while a session's chat turn runs
// ends the small front end's session as it ends the full CLI's: what is
// said, exit 1, never a hang.
func TestSessionHostDies(t *testing.T) {
	r := newRig(t)
	model := slowModel(t)
	got := r.hostDiesMidTurn(model, "think\n", "--state", r.state, "--model", "openai:gpt-test", "--base-url", model.URL+"/v1")
	if got[0] != got[1] || got[0].code != 1 || !strings.Contains(got[0].stderr, "went away") || !strings.Contains(got[0].stderr, "this session ends") {
		t.Fatalf("the front end and the full CLI differ\nfront: %s\nfull: %s", got[0], got[1])
	}
}
