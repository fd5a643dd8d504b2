package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"demiurge.dev/host/providers/providertest"
)

var sessionID = regexp.MustCompile(`ses_[0-9a-f]{20}`)

// TestSessionsIsTheFrontEnds: with a host of the same options running,
// `sessions list` and `sessions show` (an ID or last, --json) are
// answered by the small front end, byte for byte as the full CLI prints
// them (calls, results, a failed command), also with the full host
// binary replaced by a stub that must not run; what it does not answer
// (an unknown session, `sessions resume` without a prompt, other options)
// reaches the full
// host.
func TestSessionsIsTheFrontEnds(t *testing.T) {
	r := newRig(t)
	steps, err := providertest.ParseScript([]byte(`[
  {"tool_calls": [{"id": "call_1", "name": "read_file", "arg_chunks": ["{\"path\":\"words.txt\"}"]}]},
  {"tool_calls": [{"id": "call_2", "name": "terminal", "arg_chunks": ["{\"command\":\"echo no; exit 3\"}"]}]},
  {"text": ["It says one two three; ", "the command failed."]},
  {"text": ["Second <conversation>."]}
]`))
	if err != nil {
		t.Fatal(err)
	}
	model := providertest.NewServer("openai", steps)
	defer model.Close()
	env := []string{"OPENAI_API_KEY=sk-test-openai-0123456789"}
	for _, prompt := range []string{"what do\tthe words say?", "and  then?"} {
		res := r.exec(HostBinary, "", env, "--state", r.state, "--approve", "allow:terminal", "--model", "openai:gpt-test",
			"--base-url", model.URL+"/v1", "run", prompt)
		if res.code != 0 {
			t.Fatalf("run: %s", res)
		}
	}
	r.startHost()
	list := r.host("sessions", "list", "--json")
	id := sessionID.FindString(list.stdout)
	if list.code != 0 || id == "" {
		t.Fatalf("sessions list: %s", list)
	}
	cases := [][]string{
		{"sessions", "list"},
		{"sessions", "list", "--json"},
		{"sessions", "show", id},
		{"sessions", "show", "--json", id},
		{"sessions", "show", "last"},
		{"sessions", "show", "last", "--json"},
		{"-q", "--workspace", "WS", "sessions", "show", id},
	}
	for _, args := range cases {
		if args[1] == "--workspace" {
			args[2] = r.ws
		}
	}
	fronts := r.same(cases, nil, true)
	if !strings.Contains(fronts[0].stdout, "what do the words say?") || !strings.Contains(fronts[2].stdout, "→ read_file") ||
		!strings.Contains(fronts[2].stdout, "✗ terminal") || !strings.Contains(fronts[4].stdout, "agent: Second <conversation>.") {
		t.Fatalf("unexpected answers:\n%s\n%s\n%s", fronts[0], fronts[2], fronts[4])
	}

	marker := filepath.Join(t.TempDir(), "ran")
	renameStub(t, filepath.Join(r.bin, HostBinary), marker)
	r.sameStubbed(cases, fronts, nil)
	for _, tc := range []struct {
		env  []string
		args []string
	}{
		{nil, []string{"sessions", "show", "ses_00000000000000000000"}},
		{nil, []string{"sessions", "resume", id}}, // no prompt: the full CLI says so
		{nil, []string{"sessions", "show", id, "extra"}},
		{nil, []string{"sessions", "list", "--all"}},
		{nil, []string{"--workspace", t.TempDir(), "sessions", "list"}},
		{nil, []string{"--model", "openai:gpt-test", "sessions", "list"}},
		{[]string{"DEMIURGE_HOST=off"}, []string{"sessions", "list"}},
	} {
		r.reachesFullHost(marker, tc.env, append([]string{"--state", r.state}, tc.args...)...)
	}
	r.reachesFullHost(marker, nil, "--state", filepath.Join(t.TempDir(), "other"), "sessions", "list")
}
