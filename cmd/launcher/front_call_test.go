package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

// volatile is what differs between two calls of the same tool: the
// audit event's number, the duration, a host's pid.
var volatile = regexp.MustCompile(`"(event_seq|duration_ms)": \d+|\(pid \d+\)`)

func blank(res result) result {
	res.stdout, res.stderr = volatile.ReplaceAllString(res.stdout, "X"), volatile.ReplaceAllString(res.stderr, "X")
	return res
}

// callCases are tools calls whose answers the front end and the full
// CLI must print alike: a result, its JSON, and each way a call fails
// (missing and malformed arguments, an unknown tool, an approval nobody
// can give).
var callCases = [][]string{
	{"tools", "call", "read_file", `{"path":"words.txt"}`},
	{"tools", "call", "--json", "read_file", `{"path":"words.txt"}`},
	{"tools", "call", "read_file"},
	{"tools", "call", "read_file", " "},
	{"tools", "call", "read_file", `{"path":`},
	{"tools", "call", "no_such_tool", "{}"},
	{"tools", "call", "--json", "no_such_tool", "{}"},
	{"tools", "call", "write_file", `{"path":"new.txt","content":"x"}`},
	{"tools", "call", "--json", "write_file", `{"path":"new.txt","content":"x"}`},
	{"--workspace", ".", "tools", "call", "read_file", `{"path":"words.txt"}`},
	{"-q", "--no-color", "tools", "call", "read_file", `{"path":"words.txt"}`},
}

// auditCases are audits the front end answers.
var auditCases = [][]string{
	{"audit"},
	{"audit", "--json"},
	{"audit", "--limit", "2", "--tool", "read_file"},
	{"audit", "--tool=write_file", "--json", "--limit=0"},
	{"audit", "--kind", "no_such_kind"},
	{"--workspace", ".", "audit", "--limit", "3"},
	{"--no-color", "-q", "audit", "--limit", "3"},
}

// TestToolsCallIsTheFrontEnds: with a host running, `tools call` is
// answered by the small front end, byte for byte as the full CLI prints
// it (the audit number and duration blanked) and with its exit status,
// without running the full host binary; what the front end does not
// know, and a host of other options, reach the full host.
func TestToolsCallIsTheFrontEnds(t *testing.T) {
	r := newRig(t)
	// A plugin the host leaves out: every call's answer carries the
	// host's warning about it.
	r.leaveOutJunk()
	r.startHost()
	fronts := r.same(callCases, blank, false)
	if fronts[0].code != 0 || fronts[0].stdout == "" || fronts[5].code != 1 || fronts[7].code != 1 ||
		!strings.Contains(fronts[0].stderr, "warning: installed toolset junk is left out") {
		t.Fatalf("unexpected answers: %s\n%s\n%s", fronts[0], fronts[5], fronts[7])
	}
	// The audit log of those calls, through the front end and the full
	// CLI alike (listing changes nothing, so both see the same events).
	audits := r.same(auditCases, nil, true)
	if !strings.Contains(audits[0].stdout, "read_file") || !strings.Contains(audits[1].stdout, `"seq"`) {
		t.Fatalf("the audit shows no calls: %s\n%s", audits[0], audits[1])
	}
	marker := filepath.Join(t.TempDir(), "ran")
	renameStub(t, filepath.Join(r.bin, HostBinary), marker)
	r.sameStubbed(auditCases, audits, nil)
	r.sameStubbed(callCases, fronts, blank)
	if b, err := os.ReadFile(marker); err == nil {
		t.Fatalf("tools call ran the full host: %s", b)
	}
	if err := os.WriteFile(filepath.Join(r.ws, "args.json"), []byte(`{"path":"words.txt"}`), 0o644); err != nil {
		t.Fatal(err)
	}
	other := t.TempDir()
	read := []string{"tools", "call", "read_file", `{"path":"words.txt"}`}
	for _, tc := range []struct {
		env  []string
		args []string
	}{
		{[]string{"DEMIURGE_HOST=off"}, read},
		{[]string{"DEMIURGE_OUTPUT_CAP_MIB=1"}, read},
		{[]string{"DEMIURGE_TIMEZONE=UTC"}, read}, // the host runs with no zone: other options
		{nil, append([]string{"--workspace", other}, read...)},
		{nil, append([]string{"--approve", "allow:read_file"}, read...)},
		{nil, append([]string{"-quiet"}, read...)},
		{nil, []string{"tools", "call", "--session", "s1", "read_file", `{"path":"words.txt"}`}},
		{nil, []string{"tools", "call", "--wait", "read_file", `{"path":"words.txt"}`}},
		{nil, []string{"tools", "call", "read_file", "@args.json"}},
		{nil, []string{"tools", "call", "read_file", `{"path":"words.txt"}`, "--json"}},
		{nil, []string{"tools", "call", "read_file", "{}", "extra"}},
		{nil, []string{"tools", "call"}},
		{nil, []string{"audit", "--limit", "010"}},
		{nil, []string{"audit", "--limit", "-1"}},
		{nil, []string{"audit", "extra"}},
		{nil, []string{"audit", "--json", "--json"}},
		{nil, []string{"audit", "--no-color"}},
		{[]string{"DEMIURGE_TIMEZONE=UTC"}, []string{"audit"}},
	} {
		r.reachesFullHost(marker, tc.env, append([]string{"--state", r.state}, tc.args...)...)
	}
	// A state with no host.
	r.reachesFullHost(marker, nil, append([]string{"--state", filepath.Join(t.TempDir(), "other")}, read...)...)
	// The core's live commit moved (a promote): the host runs the old
	// one, and the full CLI replaces it. Then a live ref only git reads
	// (packed): the front end cannot say which commit is live.
	live := filepath.Join(r.state, "core", "repo.git", "refs", "demiurge", "live")
	commit, err := os.ReadFile(live)
	if err != nil {
		t.Fatal(err)
	}
	for _, change := range []func() error{
		func() error { return os.WriteFile(live, []byte(strings.Repeat("ab", 20)+"\n"), 0o644) },
		func() error {
			packed := filepath.Join(r.state, "core", "repo.git", "packed-refs")
			old, _ := os.ReadFile(packed)
			if err := os.WriteFile(packed, append(old, []byte(strings.TrimSpace(string(commit))+" refs/demiurge/live\n")...), 0o644); err != nil {
				return err
			}
			return os.Remove(live)
		},
	} {
		if err := change(); err != nil {
			t.Fatal(err)
		}
		os.Remove(marker)
		res := r.launcher(read...)
		if b, err := os.ReadFile(marker); res.code != 3 || err != nil {
			t.Errorf("a call with the live ref changed did not reach the full host: %s (marker %q, %v)", res, b, err)
		}
	}
}

// TestToolsCallHostDiesMidCall: a host killed while it runs the front
// end's call is reported as the full CLI reports it, exit 1.
func TestToolsCallHostDiesMidCall(t *testing.T) {
	r := newRig(t)
	if res := r.host("approvals", "add", "allow:terminal"); res.code != 0 {
		t.Fatalf("approvals add: %s", res)
	}
	args := []string{"--state", r.state, "tools", "call", "terminal", `{"command":"touch started && sleep 60"}`}
	var got []result
	for _, binary := range []string{"demiurge", HostBinary} {
		pid := r.startHostPID()
		started := filepath.Join(r.ws, "started")
		os.Remove(started)
		done := make(chan result, 1)
		go func() { done <- r.exec(binary, "", nil, args...) }()
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(started); err == nil {
				break
			}
			if time.Now().After(deadline) {
				t.Fatalf("%s: the command never started", binary)
			}
		}
		if err := exec.Command("kill", "-KILL", strconv.Itoa(pid)).Run(); err != nil {
			t.Fatal(err)
		}
		select {
		case res := <-done:
			got = append(got, blank(res))
		case <-time.After(60 * time.Second):
			t.Fatalf("%s: the call did not end after its host died", binary)
		}
	}
	if got[0] != got[1] || got[0].code != 1 || !strings.Contains(got[0].stderr, "went away during the terminal call") {
		t.Fatalf("the front end and the full CLI differ\nfront: %s\nfull: %s", got[0], got[1])
	}
}

// TestToolsCallInterrupted: Ctrl-C during a call through the front end
// cancels it, says so and exits 130, as the full CLI does.
func TestToolsCallInterrupted(t *testing.T) {
	r := newRig(t)
	if res := r.host("approvals", "add", "allow:terminal"); res.code != 0 {
		t.Fatalf("approvals add: %s", res)
	}
	if res := r.host("host", "start"); res.code != 0 {
		t.Fatalf("host start: %s", res)
	}
	t.Cleanup(func() { r.host("host", "stop") })
	var got []result
	for _, binary := range []string{"demiurge", HostBinary} {
		started := filepath.Join(r.ws, "started")
		os.Remove(started)
		cmd := &exec.Cmd{Path: filepath.Join(r.bin, binary), Dir: r.ws,
			Args: []string{"demiurge", "--state", r.state, "tools", "call", "terminal", `{"command":"touch started && sleep 60"}`},
			Env:  []string{"PATH=" + os.Getenv("PATH"), "HOME=" + r.home}}
		var stdout, stderr strings.Builder
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		for deadline := time.Now().Add(60 * time.Second); ; time.Sleep(20 * time.Millisecond) {
			if _, err := os.Stat(started); err == nil {
				break
			}
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				t.Fatalf("%s: the command never started", binary)
			}
		}
		cmd.Process.Signal(os.Interrupt)
		err := cmd.Wait()
		code := 0
		if ee, ok := err.(*exec.ExitError); ok {
			code = ee.ExitCode()
		}
		got = append(got, blank(result{code: code, stdout: stdout.String(), stderr: stderr.String()}))
	}
	if got[0] != got[1] || got[0].code != 130 || !strings.Contains(got[0].stderr, "interrupted; the terminal call was cancelled") {
		t.Fatalf("the front end and the full CLI differ\nfront: %s\nfull: %s", got[0], got[1])
	}
}
