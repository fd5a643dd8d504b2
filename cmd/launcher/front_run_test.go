package main

import (
	"encoding/json"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/providers/providertest"
)

// runMoments are what differs between two runs alike: the session and
// turn ids, the run's duration.
var (
	runIDs      = regexp.MustCompile(`(ses|turn|trn)_[0-9a-f]{8,}`)
	runDuration = regexp.MustCompile(`"duration_ms":\d+`)
)

func blankRun(res result) result {
	for _, s := range []*string{&res.stdout, &res.stderr} {
		*s = runDuration.ReplaceAllString(runIDs.ReplaceAllString(*s, "X"), `"duration_ms":0`)
	}
	return res
}

// TestRunIsTheFrontEnds: with a host of the same options running, `run
// PROMPT` (and `sessions resume ID PROMPT`, the same turn) is made by
// the small front end as the full CLI makes it through
// the host: the model's text, the tool cards and results, a denied call,
// --json events, --session last, --tool-display, a model error, an
// unknown session (output and exit status alike), also with the full
// host binary replaced by a stub that must not run; what it does not
// take (a prompt on standard input, a flag value the full CLI refuses)
// reaches the full host.
func TestRunIsTheFrontEnds(t *testing.T) {
	r := newRig(t)
	type runCase struct {
		args  []string
		steps string
	}
	cases := []runCase{
		{[]string{"run", "what do the words say?"},
			`{"tool_calls": [{"id": "c1", "name": "read_file", "arg_chunks": ["{\"path\":\"words.txt\"}"]}]},
			 {"text": ["The words: ", "one two <three>."]}`},
		{[]string{"--approve", "allow:terminal", "run", "--json", "try", "it"},
			`{"tool_calls": [{"id": "c2", "name": "terminal", "args": "{\"command\":\"echo no; exit 3\"}"}]},
			 {"text": ["It failed."], "usage": {"input_tokens": 10, "output_tokens": 3}}`},
		{[]string{"run", "try"},
			`{"tool_calls": [{"id": "c3", "name": "terminal", "args": "{\"command\":\"echo hi\"}"}]},
			 {"text": ["It was denied."]}`},
		{[]string{"--tool-display", "quiet", "run", "--session", "last", "and", "again"},
			`{"tool_calls": [{"id": "c4", "name": "read_file", "args": "{\"path\":\"words.txt\"}"}]},
			 {"text": ["Again."]}`},
		{[]string{"run", "fail"}, `{"error": {"status": 400, "message": "no such model here"}}`},
		{[]string{"sessions", "resume", "last", "once", "more"}, `{"text": ["Resumed."]}`},
		{[]string{"sessions", "resume", "--json", "last", "and", "again"}, `{"text": ["Resumed again."]}`},
	}
	// The model answers in order: each case through the launcher, then
	// the full host, then (below) the launcher with the host stubbed.
	var script []string
	for _, c := range cases {
		script = append(script, c.steps, c.steps)
	}
	for _, c := range cases {
		script = append(script, c.steps)
	}
	parsed, err := providertest.ParseScript([]byte("[" + strings.Join(script, ",") + "]"))
	if err != nil {
		t.Fatal(err)
	}
	model := providertest.NewServer("openai", parsed)
	defer model.Close()
	env := []string{"OPENAI_API_KEY=sk-test-openai-0123456789"}
	flags := []string{"--state", r.state, "--model", "openai:gpt-test", "--base-url", model.URL + "/v1"}
	r.startHost()
	// A resumed run adds to its conversation, never starts one.
	conversations := func() int {
		var list []json.RawMessage
		res := r.host("sessions", "list", "--json")
		if res.code != 0 || json.Unmarshal([]byte(res.stdout), &list) != nil {
			t.Fatalf("sessions list: %s", res)
		}
		return len(list)
	}
	var fronts []result
	for _, c := range cases {
		args := append(append([]string{}, flags...), c.args...)
		resumes := slices.Contains(c.args, "resume") || slices.Contains(c.args, "--session")
		before := 0
		if resumes {
			before = conversations()
		}
		l := blankRun(r.exec("demiurge", "", env, args...))
		if resumes && conversations() != before {
			t.Errorf("%q through the launcher started a conversation", c.args)
		}
		h := blankRun(r.exec(HostBinary, "", env, args...))
		if l != h {
			t.Errorf("%q: the launcher and the host differ\nlauncher: %s\nhost: %s", c.args, l, h)
		}
		fronts = append(fronts, l)
	}
	if fronts[0].code != 0 || fronts[0].stdout != "The words: one two <three>.\n" || !strings.Contains(fronts[0].stderr, "→ read_file") ||
		!strings.Contains(fronts[1].stdout, `"type":"result"`) || !strings.Contains(fronts[1].stdout, `"exit_code":3`) ||
		!strings.Contains(fronts[2].stderr, "denied") || fronts[3].stderr != "" || fronts[3].stdout != "Again.\n" ||
		fronts[4].code != 1 || !strings.Contains(fronts[4].stderr, "no such model here") ||
		fronts[5].stdout != "Resumed.\n" || !strings.Contains(fronts[6].stdout, `"text":"Resumed again."`) {
		t.Fatalf("unexpected answers:\n%s\n%s\n%s\n%s\n%s\n%s\n%s", fronts[0], fronts[1], fronts[2], fronts[3], fronts[4], fronts[5], fronts[6])
	}
	for _, line := range strings.Split(strings.TrimSpace(fronts[1].stdout), "\n") {
		if !json.Valid([]byte(line)) {
			t.Fatalf("run --json printed %q", line)
		}
	}
	// Refused by the host before the model is asked: an unknown session,
	// a rule it cannot read, no model (a usage error, exit 2).
	for i, args := range [][]string{
		append(append([]string{}, flags...), "run", "--session", "ses_00000000000000000000", "hi"),
		append(append([]string{}, flags...), "--approve", "allow", "run", "hi"),
		{"--state", r.state, "run", "hi"},
	} {
		l, h := r.exec("demiurge", "", env, args...), r.exec(HostBinary, "", env, args...)
		if want := []int{1, 1, 2}[i]; l != h || l.code != want {
			t.Errorf("%q: the launcher and the host differ (want exit %d)\nlauncher: %s\nhost: %s", args, want, l, h)
		}
	}

	marker := filepath.Join(t.TempDir(), "ran")
	renameStub(t, filepath.Join(r.bin, HostBinary), marker)
	for i, c := range cases {
		if res := blankRun(r.exec("demiurge", "", env, append(append([]string{}, flags...), c.args...)...)); res != fronts[i] {
			t.Errorf("%q with the full host stubbed: %s\nwant %s", c.args, res, fronts[i])
		}
	}
	for _, tc := range []struct {
		env  []string
		args []string
	}{
		{nil, []string{"run"}}, // the prompt on standard input
		{nil, []string{"--model", "bogus:x", "run", "hi"}},
		{nil, []string{"--tool-display", "loud", "run", "hi"}},
		{nil, []string{"--max-steps", "010", "run", "hi"}},
		{nil, []string{"run", "-x", "hi"}},
		{nil, []string{"run", "hi", "--model", "openai:gpt-test"}},
		{nil, []string{"sessions", "resume", "last"}},
		{nil, []string{"--core-id", "other", "run", "hi"}},
		{nil, []string{"--workspace", t.TempDir(), "run", "hi"}},
		{[]string{"DEMIURGE_HOST=off"}, []string{"run", "hi"}},
	} {
		r.reachesFullHost(marker, tc.env, append([]string{"--state", r.state}, tc.args...)...)
	}
}

// TestRunInterrupted: Ctrl-C while the model thinks ends a run through
// the small front end as it ends the full CLI's (the host cancels the
// turn; what is said, exit 130), plain and --json.
func TestRunInterrupted(t *testing.T) {
	r := newRig(t)
	slow := `{"text": ["late"], "delay_ms": 20000}`
	parsed, err := providertest.ParseScript([]byte("[" + strings.Repeat(slow+",", 3) + slow + "]"))
	if err != nil {
		t.Fatal(err)
	}
	model := providertest.NewServer("openai", parsed)
	defer model.Close()
	env := []string{"OPENAI_API_KEY=sk-test-openai-0123456789"}
	r.startHost()
	for _, args := range [][]string{{"run", "think"}, {"run", "--json", "think"}} {
		args = append([]string{"--state", r.state, "--model", "openai:gpt-test", "--base-url", model.URL + "/v1"}, args...)
		var got [2]result
		for i, binary := range []string{"demiurge", HostBinary} {
			got[i] = blankRun(r.interruptedEnv(binary, 1500*time.Millisecond, env, args...))
		}
		if got[0] != got[1] || got[0].code != 130 || !strings.Contains(got[0].stdout+got[0].stderr, "turn cancelled") {
			t.Errorf("%q interrupted: the launcher and the host differ\nlauncher: %s\nhost: %s", args, got[0], got[1])
		}
	}
}

// TestRunHostDies: a host killed while the model thinks ends a run
// through the small front end as it ends the full CLI's (exit 1, the
// host named gone).
func TestRunHostDies(t *testing.T) {
	r := newRig(t)
	model := slowModel(t)
	got := r.hostDiesMidTurn(model, "", "--state", r.state, "--model", "openai:gpt-test", "--base-url", model.URL+"/v1", "run", "think")
	if got[0] != got[1] || got[0].code != 1 || !strings.Contains(got[0].stderr, "went away during the run") {
		t.Fatalf("the front end and the full CLI differ\nfront: %s\nfull: %s", got[0], got[1])
	}
}
