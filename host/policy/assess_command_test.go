package policy

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"demiurge.dev/catalog"
	"demiurge.dev/host/policy/shellguard"
)

// terminalSpec declares a command subject with every shape argument. Its
// metadata is auto/low so that what the guard and the shape add shows.
func terminalSpec() catalog.ToolSpec {
	return catalog.ToolSpec{
		Name: "terminal", Effect: catalog.EffectExec,
		Metadata: catalog.Metadata{Risk: catalog.RiskLow, Capability: "terminal.exec", ApprovalPolicy: catalog.ApprovalAuto},
		Subjects: []catalog.Subject{{Kind: catalog.SubjectCommand, Arg: "command", CwdArg: "cwd", EnvArg: "env", BackgroundArg: "background", TimeoutArg: "timeout"}},
	}
}

// realWorkspace is a workspace on disk with a subdirectory, a directory
// outside it, and a symlink inside pointing out.
func realWorkspace(t *testing.T) (ws Workspace, outside string) {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	root := filepath.Join(base, "proj")
	outside = filepath.Join(base, "elsewhere")
	for _, d := range []string{filepath.Join(root, "sub"), filepath.Join(root, "other"), outside} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(root, "escape")); err != nil {
		t.Fatal(err)
	}
	ws, err = NewWorkspace(root)
	if err != nil {
		t.Fatal(err)
	}
	return ws, outside
}

func hasReason(reasons []string, part string) bool {
	return slices.ContainsFunc(reasons, func(r string) bool { return strings.Contains(r, part) })
}

func TestAssessCommandGuard(t *testing.T) {
	ws, _ := realWorkspace(t)
	for _, tc := range []struct {
		cmd      string
		meta     *catalog.Metadata
		risk     catalog.Risk
		approval catalog.ApprovalPolicy
		block    bool
		guard    shellguard.Decision
		reason   string
	}{
		{cmd: "git log --oneline -5", risk: catalog.RiskLow, approval: catalog.ApprovalAuto, guard: shellguard.Allow},
		{cmd: "ls | wc -l", risk: catalog.RiskLow, approval: catalog.ApprovalAuto, guard: shellguard.Allow},
		{cmd: "make test", risk: catalog.RiskHigh, approval: catalog.ApprovalPrompt, guard: shellguard.Prompt, reason: "command: make may run repository code"},
		{cmd: "cat ../x", risk: catalog.RiskMedium, approval: catalog.ApprovalPrompt, guard: shellguard.Prompt, reason: "outside the workspace"},
		{cmd: "cat .env", risk: catalog.RiskHigh, approval: catalog.ApprovalPrompt, guard: shellguard.Prompt, reason: "credential-like"},
		{cmd: "echo $(id)", risk: catalog.RiskHigh, approval: catalog.ApprovalPrompt, guard: shellguard.Prompt, reason: "command substitution"},
		{cmd: "rm -rf /", risk: catalog.RiskHigh, approval: catalog.ApprovalDeny, block: true, guard: shellguard.Block, reason: "blocked command: rm -r of /"},
		{cmd: "rm -rf .", risk: catalog.RiskHigh, approval: catalog.ApprovalDeny, block: true, guard: shellguard.Block, reason: "the workspace root"},
		// The registry's own metadata still applies: the guard only raises.
		{cmd: "ls", meta: &catalog.Metadata{Risk: catalog.RiskHigh, ApprovalPolicy: catalog.ApprovalPrompt},
			risk: catalog.RiskHigh, approval: catalog.ApprovalPrompt, guard: shellguard.Allow},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			spec := terminalSpec()
			meta := spec.Metadata
			if tc.meta != nil {
				meta = *tc.meta
			}
			a, err := Assess(spec, meta, map[string]any{"command": tc.cmd}, ws)
			if err != nil {
				t.Fatal(err)
			}
			if a.Risk != tc.risk || a.Approval != tc.approval || a.Block != tc.block {
				t.Errorf("risk/approval/block = %v/%v/%v %q, want %v/%v/%v", a.Risk, a.Approval, a.Block, a.Reasons, tc.risk, tc.approval, tc.block)
			}
			f := a.Subjects[0]
			if f.Command == nil || f.Command.Guard.Decision != tc.guard {
				t.Fatalf("guard verdict = %+v, want %v", f.Command, tc.guard)
			}
			if f.GuardAllows() != (tc.guard == shellguard.Allow) {
				t.Errorf("GuardAllows = %v for a %v verdict", f.GuardAllows(), tc.guard)
			}
			if tc.reason != "" && !hasReason(a.Reasons, tc.reason) {
				t.Errorf("reasons %q lack %q", a.Reasons, tc.reason)
			}
			if tc.reason == "" && tc.meta == nil && len(a.Reasons) != 0 {
				t.Errorf("unexpected reasons %q", a.Reasons)
			}
			if !slices.Equal(a.ResourceKeys, []string{ResourceKeyExec + ws.Root}) {
				t.Errorf("resource keys = %q, want exec:<root>", a.ResourceKeys)
			}
		})
	}
}

func TestAssessCommandFingerprintCoversTheShape(t *testing.T) {
	ws, _ := realWorkspace(t)
	base := map[string]any{"command": "go test ./...", "cwd": "sub", "env": map[string]any{"GOFLAGS": "-count=1"}, "background": false, "timeout": 60.0}
	with := func(k string, v any) map[string]any {
		m := map[string]any{}
		for kk, vv := range base {
			m[kk] = vv
		}
		if v == nil {
			delete(m, k)
		} else {
			m[k] = v
		}
		return m
	}
	fp := func(args map[string]any) string {
		t.Helper()
		a, err := Assess(terminalSpec(), terminalSpec().Metadata, args, ws)
		if err != nil {
			t.Fatal(err)
		}
		return a.Fingerprint
	}
	want := fp(base)
	for name, args := range map[string]map[string]any{
		"command":           with("command", "go test ./pkg"),
		"cwd":               with("cwd", "other"),
		"cwd missing":       with("cwd", nil),
		"env value":         with("env", map[string]any{"GOFLAGS": "-count=2"}),
		"env key":           with("env", map[string]any{"GOFLAGZ": "-count=1"}),
		"env added":         with("env", map[string]any{"GOFLAGS": "-count=1", "CGO_ENABLED": "0"}),
		"env missing":       with("env", nil),
		"background":        with("background", true),
		"timeout":           with("timeout", 61.0),
		"timeout missing":   with("timeout", nil),
		"env split shifted": with("env", map[string]any{"GOFLAGS": "-count=1", "": ""}),
	} {
		if got := fp(args); got == want {
			t.Errorf("%s: a different shape shares the fingerprint", name)
		}
	}
	// The same shape spelt differently is the same call.
	for name, args := range map[string]map[string]any{
		"cwd by absolute path": with("cwd", filepath.Join(ws.Root, "sub")),
		"cwd with a dot":       with("cwd", "./sub/"),
		"timeout as a number":  with("timeout", json.Number("60")),
		"background absent":    with("background", nil),
	} {
		if got := fp(args); got != want {
			t.Errorf("%s: the same shape has another fingerprint", name)
		}
	}
}

func TestAssessCommandShowsEnvKeysNeverValues(t *testing.T) {
	ws, _ := realWorkspace(t)
	const value = "s3cr3t-overlay-value"
	a, err := Assess(terminalSpec(), terminalSpec().Metadata, map[string]any{
		"command": "ls", "env": map[string]any{"API_TOKEN": value, "LD_PRELOAD": "/x.so"},
	}, ws)
	if err != nil {
		t.Fatal(err)
	}
	if a.Approval != catalog.ApprovalPrompt || a.Risk != catalog.RiskHigh {
		t.Errorf("an overlay with a loader variable = %v/%v, want prompt/high", a.Risk, a.Approval)
	}
	if !hasReason(a.Reasons, "sets environment variables API_TOKEN, LD_PRELOAD") {
		t.Errorf("reasons %q do not name the overlay's keys", a.Reasons)
	}
	if got := a.Subjects[0].Command.EnvKeys; !slices.Equal(got, []string{"API_TOKEN", "LD_PRELOAD"}) {
		t.Errorf("env keys = %q", got)
	}
	b, err := json.Marshal(a)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), value) || strings.Contains(string(b), "/x.so") {
		t.Errorf("an overlay value leaks into the assessment: %s", b)
	}
	plain, _ := Assess(terminalSpec(), terminalSpec().Metadata, map[string]any{"command": "ls", "env": map[string]any{"LANG": "C"}}, ws)
	if plain.Approval != catalog.ApprovalPrompt || plain.Risk != catalog.RiskMedium {
		t.Errorf("any overlay needs approval: got %v/%v", plain.Risk, plain.Approval)
	}
	empty, _ := Assess(terminalSpec(), terminalSpec().Metadata, map[string]any{"command": "ls", "env": map[string]any{}}, ws)
	if empty.Approval != catalog.ApprovalAuto {
		t.Errorf("an empty overlay is no overlay: got %v", empty.Approval)
	}
}

func TestAssessCommandCwd(t *testing.T) {
	ws, outside := realWorkspace(t)
	for _, tc := range []struct {
		cwd      any
		resolved string
		inside   bool
		reason   string
	}{
		{cwd: nil, resolved: ws.Root, inside: true},
		{cwd: "", resolved: ws.Root, inside: true},
		{cwd: "sub", resolved: filepath.Join(ws.Root, "sub"), inside: true},
		{cwd: filepath.Join(ws.Root, "sub"), resolved: filepath.Join(ws.Root, "sub"), inside: true},
		{cwd: "not-yet", resolved: filepath.Join(ws.Root, "not-yet"), inside: true},
		{cwd: "../elsewhere", resolved: outside, reason: "is outside the workspace"},
		{cwd: outside, resolved: outside, reason: "is outside the workspace"},
		{cwd: "escape", resolved: outside, reason: "through a symlink"},
	} {
		args := map[string]any{"command": "ls"}
		if tc.cwd != nil {
			args["cwd"] = tc.cwd
		}
		a, err := Assess(terminalSpec(), terminalSpec().Metadata, args, ws)
		if err != nil {
			t.Fatalf("cwd %v: %v", tc.cwd, err)
		}
		f := a.Subjects[0]
		if f.Resolved != tc.resolved || f.Inside != tc.inside {
			t.Errorf("cwd %v: resolved %s inside %v, want %s %v", tc.cwd, f.Resolved, f.Inside, tc.resolved, tc.inside)
		}
		if tc.inside && a.Approval != catalog.ApprovalAuto {
			t.Errorf("cwd %v: %v %q, want auto", tc.cwd, a.Approval, a.Reasons)
		}
		if !tc.inside && (a.Approval != catalog.ApprovalDeny || !hasReason(a.Reasons, tc.reason)) {
			t.Errorf("cwd %v: %v %q, want deny with %q", tc.cwd, a.Approval, a.Reasons, tc.reason)
		}
		if !slices.Equal(a.ResourceKeys, []string{ResourceKeyExec + tc.resolved}) {
			t.Errorf("cwd %v: resource keys %q", tc.cwd, a.ResourceKeys)
		}
	}
}

func TestAssessCommandArgumentTypes(t *testing.T) {
	ws, _ := realWorkspace(t)
	for _, tc := range []struct {
		name string
		args map[string]any
		want string
	}{
		{"command missing", map[string]any{}, `argument "command" is missing`},
		{"command not a string", map[string]any{"command": 3.0}, `"command" must be a string`},
		{"cwd not a string", map[string]any{"command": "ls", "cwd": 1.0}, `"cwd" must be a string`},
		{"cwd with NUL", map[string]any{"command": "ls", "cwd": "a\x00b"}, "NUL"},
		{"env not an object", map[string]any{"command": "ls", "env": "A=1"}, `"env" must be an object`},
		{"env value not a string", map[string]any{"command": "ls", "env": map[string]any{"N": 1.0}}, `the value of "N" must be a string`},
		{"background not a bool", map[string]any{"command": "ls", "background": "yes"}, `"background" must be true or false`},
		{"timeout not a number", map[string]any{"command": "ls", "timeout": "10"}, `"timeout" must be a number`},
		{"timeout not finite", map[string]any{"command": "ls", "timeout": json.Number("1e999")}, `"timeout" must be`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Assess(terminalSpec(), terminalSpec().Metadata, tc.args, ws)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
	// Null optional arguments are absent ones.
	if _, err := Assess(terminalSpec(), terminalSpec().Metadata, map[string]any{"command": "ls", "cwd": nil, "env": nil, "background": nil, "timeout": nil}, ws); err != nil {
		t.Fatalf("null optional arguments: %v", err)
	}
}

func TestAssessCommandWithoutShapeArguments(t *testing.T) {
	// A command subject that names no cwd, env, background or timeout
	// argument runs in the workspace root, in the foreground.
	spec := catalog.ToolSpec{Name: "run", Effect: catalog.EffectExec,
		Metadata: catalog.Metadata{Risk: catalog.RiskLow, ApprovalPolicy: catalog.ApprovalAuto},
		Subjects: []catalog.Subject{{Kind: catalog.SubjectCommand, Arg: "cmd"}}}
	a, err := Assess(spec, spec.Metadata, map[string]any{"cmd": "pwd", "cwd": "/etc"}, ws)
	if err != nil {
		t.Fatal(err)
	}
	f := a.Subjects[0]
	if f.Resolved != ws.Root || f.Command.Background || f.Command.Timeout != 0 || a.Approval != catalog.ApprovalAuto {
		t.Errorf("fact = %+v %+v, approval %v", f, f.Command, a.Approval)
	}
}

func TestHideEnvValues(t *testing.T) {
	ws, _ := realWorkspace(t)
	args := map[string]any{"command": "make", "env": map[string]any{"GOFLAGS": "-count=1", "API_TOKEN": "v4lue"}}
	a, err := Assess(terminalSpec(), terminalSpec().Metadata, args, ws)
	if err != nil {
		t.Fatal(err)
	}
	shown := a.HideEnvValues(args)
	b, _ := json.Marshal(shown)
	if strings.Contains(string(b), "v4lue") || strings.Contains(string(b), "-count=1") {
		t.Errorf("the view holds an env value: %s", b)
	}
	if !strings.Contains(string(b), `"keys":["API_TOKEN","GOFLAGS"]`) || shown["command"] != "make" {
		t.Errorf("the view = %s", b)
	}
	if _, ok := args["env"].(map[string]any)["API_TOKEN"]; !ok {
		t.Error("HideEnvValues changed its argument")
	}
	plain := map[string]any{"command": "ls"}
	a, _ = Assess(terminalSpec(), terminalSpec().Metadata, plain, ws)
	if got := a.HideEnvValues(plain); len(got) != 1 || got["command"] != "ls" {
		t.Errorf("without an overlay: %v", got)
	}
}
