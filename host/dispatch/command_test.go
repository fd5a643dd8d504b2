package dispatch

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/runtime"
)

// terminalSource is the coding plugin with its terminal declared as the
// plugin declares it: high, prompt, a command subject.
func (h *harness) terminalSource(t testing.TB) catalog.Source {
	src := h.source(t, "coding", func(tool string) catalog.Metadata {
		if tool == "terminal" {
			return catalog.Metadata{Risk: catalog.RiskHigh, Capability: "terminal.exec", ApprovalPolicy: catalog.ApprovalPrompt}
		}
		return codingMeta(tool)
	})
	for i := range src.Tools {
		if src.Tools[i].Name == "terminal" {
			src.Tools[i].Effect = catalog.EffectExec
			src.Tools[i].Subjects = []catalog.Subject{{Kind: catalog.SubjectCommand, Arg: "command", CwdArg: "cwd", EnvArg: "env", BackgroundArg: "background", TimeoutArg: "timeout"}}
		}
	}
	return src
}

// boundValue is shaped like nothing the token table knows, so only the
// exact-value redaction of the bound secret can hide it.
const boundValue = "plain-words-nobody-would-flag"

// terminalTurn is a turn with the real terminal, a host environment that
// holds credentials, and the secret GH_TOKEN granted for binding.
func (h *harness) terminalTurn(t testing.TB, p approval.Provider) (*Turn, *[]Event) {
	t.Helper()
	turn := h.turn(t, []string{"terminal.exec", "fs.read", "secret.bind:GH_TOKEN", "secret.bind:UNSET_ONE"}, p, h.terminalSource(t))
	state := t.TempDir()
	turn.ArtifactRoot = filepath.Join(state, "runtime", "artifacts", "a1b2c3")
	turn.Commands = CommandConfig{
		HostEnv: []string{"PATH=/usr/bin:/bin", "LANG=C.UTF-8", "OPENAI_API_KEY=sk-host-credential", "LD_PRELOAD=/evil.so", "TZ=Asia/Tokyo"},
		Lookup: func(n string) (string, bool) {
			if n == "GH_TOKEN" {
				return boundValue, true
			}
			return "", false
		},
	}
	var mu sync.Mutex
	events := &[]Event{}
	turn.OnEvent = func(_ string, ev Event) {
		mu.Lock()
		*events = append(*events, ev)
		mu.Unlock()
	}
	return turn, events
}

func TestCommandEnvironmentIsTheHosts(t *testing.T) {
	h := newHarness(t)
	turn, _ := h.terminalTurn(t, &answer{a: approval.AllowOnce})
	out := turn.Call(context.Background(), ToolCall{ID: "env", Name: "terminal", Args: []byte(`{"command":"env | sort","env":{"FOO":"bar"}}`)})
	if !out.OK() {
		t.Fatalf("%s %s", out.Status, out.Views.Model.String())
	}
	home := filepath.Join(filepath.Dir(filepath.Dir(turn.ArtifactRoot)), "terminal-home")
	for _, want := range []string{"FOO=bar", "HOME=" + home, "LANG=C.UTF-8", "TZ=Asia/Tokyo", "PATH=/usr/bin:/bin"} {
		if !strings.Contains(out.Views.Model.String(), want) {
			t.Errorf("the command's environment lacks %s:\n%s", want, out.Views.Model.String())
		}
	}
	for _, banned := range []string{"OPENAI_API_KEY", "sk-host-credential", "LD_PRELOAD", "DEMIURGE"} {
		if strings.Contains(out.Views.Model.String(), banned) {
			t.Errorf("the command's environment holds %s:\n%s", banned, out.Views.Model.String())
		}
	}
	if st, err := os.Stat(home); err != nil || st.Mode().Perm() != 0o700 {
		t.Fatalf("runtime home %v, %v; want a 0700 directory", st, err)
	}
}

func TestCommandBindingReachesOnlyTheCommand(t *testing.T) {
	h := newHarness(t)
	p := &answer{a: approval.AllowSession}
	turn, events := h.terminalTurn(t, p)
	args := `{"command":"echo token=$GH_TOKEN; echo $GH_TOKEN >&2; printf %s \"$GH_TOKEN\" | wc -c","secret_bindings":[{"source":"env:GH_TOKEN","expires_in_seconds":60}]}`
	out := turn.Call(context.Background(), ToolCall{ID: "b1", Name: "terminal", Args: []byte(args)})
	if !out.OK() || !strings.Contains(out.Views.Model.String(), "<redacted:GH_TOKEN>") || !strings.Contains(out.Views.Model.String(), fmt.Sprint(len(boundValue))) {
		t.Fatalf("%s %s", out.Status, out.Views.Model.String())
	}
	views, _ := json.Marshal(out.Views)
	if strings.Contains(string(views), boundValue) {
		t.Fatalf("a view holds the bound value: %s", views)
	}
	for _, ev := range *events {
		if strings.Contains(string(ev.Data), boundValue) {
			t.Fatalf("an output event holds the bound value: %q", ev.Data)
		}
	}
	evs, err := h.store.Events(runtime.EventQuery{Tool: "terminal"})
	if err != nil {
		t.Fatal(err)
	}
	var audit strings.Builder
	for _, ev := range evs {
		audit.Write(ev.Data)
	}
	for _, want := range []string{`"source":"env:GH_TOKEN"`, `"capability":"secret.bind:GH_TOKEN"`, `"env_keys"`, `"shell"`, `"expires_at"`} {
		if !strings.Contains(audit.String(), want) {
			t.Errorf("audit lacks %s: %s", want, audit.String())
		}
	}
	if strings.Contains(audit.String(), boundValue) {
		t.Fatal("the audit log holds the bound value")
	}
	// An allow for the session never covers a binding: asked again.
	turn.Call(context.Background(), ToolCall{ID: "b2", Name: "terminal", Args: []byte(args)})
	if p.asked != 2 {
		t.Fatalf("asked %d times; a call with a binding must be asked about every time", p.asked)
	}
}

func TestCommandRefusedBeforeApproval(t *testing.T) {
	h := newHarness(t)
	p := &answer{a: approval.AllowOnce}
	turn, _ := h.terminalTurn(t, p)
	outside := t.TempDir()
	if err := os.Symlink(outside, filepath.Join(h.ws, "out")); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, args, says string }{
		{"not granted", `{"command":"true","secret_bindings":[{"source":"env:OTHER"}]}`, "does not hold secret.bind:OTHER"},
		{"unset variable", `{"command":"true","secret_bindings":[{"source":"env:UNSET_ONE"}]}`, "UNSET_ONE is not set"},
		{"expired binding", `{"command":"true","secret_bindings":[{"source":"env:GH_TOKEN","expires_in_seconds":0}]}`, "already expired"},
		{"binding outlives the timeout", `{"command":"true","timeout":5,"secret_bindings":[{"source":"env:GH_TOKEN","expires_in_seconds":6}]}`, "may not outlive"},
		{"binding onto PATH", `{"command":"true","secret_bindings":[{"source":"env:GH_TOKEN","target":"PATH"}]}`, "is refused: it controls how programs"},
		{"overlay LD_PRELOAD", `{"command":"true","env":{"LD_PRELOAD":"/x.so"}}`, "may not set LD_PRELOAD"},
		{"overlay PATH", `{"command":"true","env":{"PATH":"/tmp"}}`, "may not replace PATH"},
		{"timeout zero", `{"command":"true","timeout":0}`, "1 to 3600"},
		{"timeout negative", `{"command":"true","timeout":-1}`, "1 to 3600"},
		{"timeout over the maximum", `{"command":"true","timeout":3601}`, "1 to 3600"},
		{"cwd outside", `{"command":"true","cwd":"` + outside + `"}`, "outside the workspace"},
		{"cwd through a symlink", `{"command":"true","cwd":"out"}`, "outside the workspace"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := turn.Call(context.Background(), ToolCall{ID: tc.name, Name: "terminal", Args: []byte(tc.args)})
			if out.Status != StatusInvalidArguments || !strings.Contains(out.Views.Model.String(), tc.says) {
				t.Fatalf("%s %q, want invalid_arguments saying %q", out.Status, out.Views.Model.String(), tc.says)
			}
		})
	}
	if p.asked != 0 {
		t.Fatalf("asked %d times about calls that could not run", p.asked)
	}
}

// slowAnswer approves after a delay, as an operator who takes their time.
type slowAnswer struct{ d time.Duration }

func (slowAnswer) Name() string { return "slow" }
func (s slowAnswer) Ask(context.Context, approval.Request) (approval.Answer, error) {
	time.Sleep(s.d)
	return approval.AllowOnce, nil
}

func TestBindingExpiredDuringApproval(t *testing.T) {
	h := newHarness(t)
	turn, _ := h.terminalTurn(t, slowAnswer{1100 * time.Millisecond})
	out := turn.Call(context.Background(), ToolCall{ID: "late", Name: "terminal",
		Args: []byte(`{"command":"echo $GH_TOKEN","secret_bindings":[{"source":"env:GH_TOKEN","expires_in_seconds":1}]}`)})
	if out.Status != StatusFailed || !strings.Contains(out.Views.Model.String(), "expired") {
		t.Fatalf("%s %q; want failed because the binding expired", out.Status, out.Views.Model.String())
	}
}

func TestBindingExpiryEndsTheCommand(t *testing.T) {
	h := newHarness(t)
	turn, _ := h.terminalTurn(t, &answer{a: approval.AllowOnce})
	start := time.Now()
	out := turn.Call(context.Background(), ToolCall{ID: "exp", Name: "terminal",
		Args: []byte(`{"command":"sleep 30","timeout":60,"secret_bindings":[{"source":"env:GH_TOKEN","expires_in_seconds":1}]}`)})
	if out.Status != StatusToolError || !strings.Contains(out.Views.Model.String(), "expired") || time.Since(start) > 10*time.Second {
		t.Fatalf("%s %q after %v; want the tree ended at the binding's expiry", out.Status, out.Views.Model.String(), time.Since(start))
	}
}

// Cancelling the caller's context (a foreground turn cancelled) ends the
// command's whole tree in the plugin.
func TestCommandCancellationEndsTheTree(t *testing.T) {
	h := newHarness(t)
	turn, _ := h.terminalTurn(t, &answer{a: approval.AllowOnce})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	pgid := make(chan int, 1)
	turn.OnEvent = func(_ string, ev Event) {
		if n, err := strconv.Atoi(strings.TrimSpace(string(ev.Data))); err == nil && n > 1 {
			select {
			case pgid <- n:
			default:
			}
		}
	}
	done := make(chan Outcome, 1)
	go func() {
		done <- turn.Call(ctx, ToolCall{ID: "c", Name: "terminal", Args: []byte(`{"command":"echo $$; sleep 60 & sleep 60"}`)})
	}()
	var group int
	select {
	case group = <-pgid:
	case <-time.After(20 * time.Second):
		t.Fatal("the command never printed its group")
	}
	cancel()
	out := <-done
	if out.OK() {
		t.Fatalf("a cancelled call is ok: %q", out.Views.Model.String())
	}
	deadline := time.Now().Add(5 * time.Second)
	for groupAlive(group) {
		if time.Now().After(deadline) {
			_ = syscall.Kill(-group, syscall.SIGKILL)
			t.Fatalf("group %d outlived the cancelled call", group)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// groupAlive reports whether a live (non-zombie) process of the group is
// left, from /proc.
func groupAlive(pgid int) bool {
	ents, _ := os.ReadDir("/proc")
	for _, e := range ents {
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			return true
		}
	}
	return false
}

// BenchmarkTerminalFirstByte is spawn-to-first-byte through the whole
// path: dispatch, approval, the coding plugin over gRPC, the shell, the
// drain, and the output event back in the host; p50 and p99 of `echo x`.
func BenchmarkTerminalFirstByte(b *testing.B) {
	h := newHarness(b)
	turn, _ := h.terminalTurn(b, &answer{a: approval.AllowOnce})
	turn.MaxCalls = 1 << 30
	var first time.Time
	turn.OnEvent = func(_ string, ev Event) {
		if first.IsZero() && len(ev.Data) > 0 {
			first = time.Now()
		}
	}
	call := ToolCall{ID: "x", Name: "terminal", Args: []byte(`{"command":"echo x"}`)}
	if out := turn.Call(context.Background(), call); !out.OK() { // warm: plugin started
		b.Fatalf("%s %s", out.Status, out.Views.Model.String())
	}
	lat := make([]time.Duration, 0, b.N)
	for b.Loop() {
		first = time.Time{}
		start := time.Now()
		if out := turn.Call(context.Background(), call); !out.OK() || first.IsZero() {
			b.Fatalf("%s %s", out.Status, out.Views.Model.String())
		}
		lat = append(lat, first.Sub(start))
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50_ms")
	b.ReportMetric(float64(lat[min(len(lat)-1, len(lat)*99/100)].Microseconds())/1000, "p99_ms")
}
