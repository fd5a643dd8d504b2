package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"demiurge.dev/catalog"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/mcp/mcptest"
)

const pickSchema = `{"type":"object","properties":{"a":{"type":"string"},"b":{"$ref":"#/$defs/num"}},"anyOf":[{"required":["a"]},{"required":["b"]}],"oneOf":[{"required":["a"]},{"required":["b"]}],"$defs":{"num":{"type":"integer","minimum":0}},"additionalProperties":false}`

// TestEchoThroughDispatch: a gated, approved stdio server's tools reach
// the catalog under server__tool with their raw schemas, and a call goes
// through the one dispatch path to the server and back.
func TestEchoThroughDispatch(t *testing.T) {
	f := newFixture(t)
	f.server("echo", "echo", "")
	f.ask.allow(ConnectTool("echo"))
	r := f.resolve()
	st := state(t, r, "echo")
	if st.Status != StatusConnected {
		t.Fatalf("%+v", st)
	}
	if !slices.Equal(st.Tools, []string{"echo__echo", "echo__env", "echo__pick", "echo__pids"}) {
		t.Fatalf("tools %v", st.Tools)
	}
	if st.Protocol != "2025-11-25" || !strings.HasPrefix(st.ServerInfo, "echo ") {
		t.Fatalf("protocol %q server %q", st.Protocol, st.ServerInfo)
	}
	var pick json.RawMessage
	for _, spec := range r.Sources[0].Tools {
		if spec.Name == "echo__pick" {
			pick = spec.InputSchema
			if spec.Metadata.Capability != "mcp.call:echo" || spec.Provenance.Toolset != "echo" {
				t.Fatalf("%+v", spec)
			}
		}
	}
	if !jsonEqual(t, pick, []byte(pickSchema)) {
		t.Fatalf("schema changed on the way:\n%s\nwant\n%s", pick, pickSchema)
	}

	turn := f.dispatchTurn(r, "echo__echo")
	out := turn.Call(context.Background(), dispatch.ToolCall{ID: "c1", Name: "echo__echo", Args: []byte(`{"text":"hello"}`)})
	if !out.OK() || unwrapped(out.Views.Model.String()) != "hello" {
		t.Fatalf("%s: %q", out.Status, unwrapped(out.Views.Model.String()))
	}
	out = turn.Call(context.Background(), dispatch.ToolCall{ID: "c2", Name: "echo__echo", Args: []byte(`{"text":"fail"}`)})
	if out.Status != dispatch.StatusToolError || !strings.Contains(unwrapped(out.Views.Model.String()), "asked to fail") {
		t.Fatalf("%s: %q", out.Status, unwrapped(out.Views.Model.String()))
	}
	// Not allowed by a rule: prompt, and nobody answers.
	out = turn.Call(context.Background(), dispatch.ToolCall{ID: "c3", Name: "echo__pick", Args: []byte(`{"a":"x"}`)})
	if out.Status != dispatch.StatusDenied {
		t.Fatalf("%s: %q", out.Status, unwrapped(out.Views.Model.String()))
	}
	// The schema's anyOf is enforced by dispatch.
	out = turn.Call(context.Background(), dispatch.ToolCall{ID: "c4", Name: "echo__pick", Args: []byte(`{}`)})
	if out.Status != dispatch.StatusInvalidArguments {
		t.Fatalf("%s: %q", out.Status, unwrapped(out.Views.Model.String()))
	}
	// The second turn reuses the connection: no new approval.
	asked := f.ask.count()
	if st := state(t, f.resolve(), "echo"); st.Status != StatusConnected || f.ask.count() != asked {
		t.Fatalf("%+v, asked %d then %d", st, asked, f.ask.count())
	}
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return false
	}
	ja, _ := json.Marshal(x)
	jb, _ := json.Marshal(y)
	return string(ja) == string(jb)
}

// TestCallNeedsCallCapability: the call capability is separate from the
// connect one; the manifest may name another.
func TestCallNeedsCallCapability(t *testing.T) {
	f := newFixture(t)
	f.caps = []string{"mcp.connect:echo", "tool.call:special"}
	f.server("echo", "echo", "")
	f.server("echo2", "echo", "capability: tool.call:special\n")
	f.ask.allow(ConnectTool("echo"), ConnectTool("echo2"))
	r := f.resolve()
	turn := f.dispatchTurn(r, "echo__echo", "echo2__echo")
	if out := turn.Call(context.Background(), dispatch.ToolCall{Name: "echo__echo", Args: []byte(`{"text":"x"}`)}); out.Status != dispatch.StatusCapabilityDenied || !strings.Contains(unwrapped(out.Views.Model.String()), "mcp.call:echo") {
		t.Fatalf("%s: %q", out.Status, unwrapped(out.Views.Model.String()))
	}
	if st := state(t, r, "echo2"); st.Status != StatusDenied || !strings.Contains(st.Diagnostic, "mcp.connect:echo2") {
		t.Fatalf("%+v", st)
	}
	f.caps = append(f.caps, "mcp.connect:echo2")
	r = f.resolve()
	turn = f.dispatchTurn(r, "echo2__echo")
	if out := turn.Call(context.Background(), dispatch.ToolCall{Name: "echo2__echo", Args: []byte(`{"text":"x"}`)}); !out.OK() {
		t.Fatalf("%s: %q", out.Status, unwrapped(out.Views.Model.String()))
	}
}

// TestGateBeforeStart: without the capability, or without approval, no
// process starts; a denial is asked again the next turn; the approved
// server runs in the resolved cwd; a cwd outside the workspace fails
// before anyone is asked.
func TestGateBeforeStart(t *testing.T) {
	f := newFixture(t)
	// The shell writes its working directory to the marker, then becomes
	// the echo server: the marker exists once anything was started.
	marker := filepath.Join(t.TempDir(), "started")
	f.shellServer("echo", "pwd -P > "+marker+"; exec "+filepath.Join(f.bins, "echo"), "cwd: sub\n")
	f.caps = []string{"mcp.call:echo"}
	if st := state(t, f.resolve(), "echo"); st.Status != StatusDenied || !strings.Contains(st.Diagnostic, "mcp.connect:echo is not granted") {
		t.Fatalf("%+v", st)
	}
	if f.ask.count() != 0 {
		t.Fatal("asked for approval without the capability")
	}
	notStarted(t, marker, "without the capability")
	f.caps = []string{"mcp.connect:echo", "mcp.call:echo"}
	if st := state(t, f.resolve(), "echo"); st.Status != StatusDenied || !strings.Contains(st.Diagnostic, "not approved") || !st.RetryAt.IsZero() {
		t.Fatalf("%+v", st)
	}
	if f.ask.count() != 1 {
		t.Fatalf("asked %d times", f.ask.count())
	}
	notStarted(t, marker, "without approval")
	// Denial is rechecked next turn, not cached.
	f.ask.allow(ConnectTool("echo"))
	r := f.resolve()
	st := state(t, r, "echo")
	if st.Status != StatusConnected || f.ask.count() != 2 {
		t.Fatalf("%+v asked %d", st, f.ask.count())
	}
	// The server runs in the resolved cwd.
	cwd, err := os.ReadFile(marker)
	if err != nil {
		t.Fatalf("approved, yet never started: %v", err)
	}
	if got := strings.TrimSpace(string(cwd)); got != filepath.Join(f.ws.Root, "sub") {
		t.Fatalf("the server ran in %s, not in the workspace's sub", got)
	}

	for _, cwd := range []string{"..", "/etc", "missing"} {
		g := newFixture(t)
		g.server("out", "echo", "cwd: "+cwd+"\n")
		st := state(t, g.resolve(), "out")
		if st.Status != StatusFailed || !strings.Contains(st.Diagnostic, "cwd") || g.ask.count() != 0 {
			t.Fatalf("cwd %s: %+v asked %d", cwd, st, g.ask.count())
		}
	}
	// A symlink out of the workspace is refused too.
	g := newFixture(t)
	if err := os.Symlink("/etc", filepath.Join(g.ws.Root, "link")); err != nil {
		t.Fatal(err)
	}
	g.server("out", "echo", "cwd: link\n")
	if st := state(t, g.resolve(), "out"); st.Status != StatusFailed || !strings.Contains(st.Diagnostic, "outside the workspace") {
		t.Fatalf("%+v", st)
	}
}

// shellServer declares a stdio server that /bin/sh runs as script.
func (f *fixture) shellServer(id, script, extra string) {
	f.t.Helper()
	args, err := json.Marshal([]string{"-c", script})
	if err != nil {
		f.t.Fatal(err)
	}
	mcptest.Manifest(f.t, f.mcpDir, id, "command: /bin/sh\nargs: "+string(args)+"\n"+extra)
}

// notStarted fails the test when marker exists: a server was started.
func notStarted(t *testing.T, marker, when string) {
	t.Helper()
	if _, err := os.Stat(marker); !os.IsNotExist(err) {
		t.Fatalf("a server process started %s (marker: %v)", when, err)
	}
}

// TestPreviewIsSafe: the connect approval shows launch metadata, never env
// or header values, URL credentials or query, or secret arguments.
func TestPreviewIsSafe(t *testing.T) {
	f := newFixture(t)
	f.server("echo", "echo", "args: [--api-key, sk-live-abcdef123456, --verbose]\nenv: {ECHO_TOKEN: tok-98765-secret, LEVEL: debugging}\ncwd: sub\n")
	mcptest.Manifest(t, f.mcpDir, "web", "url: https://mcp.example.com:8443/mcp?key=qsecret-4567\nheaders: {Authorization: Bearer hdr-secret-1111, X-Api-Key: hdr-secret-2222}\n")
	f.resolve()
	if f.ask.count() != 2 {
		t.Fatalf("asked %d", f.ask.count())
	}
	all := strings.Join(f.ask.asked, "\n")
	for _, secret := range []string{"sk-live-abcdef123456", "tok-98765-secret", "debugging", "qsecret-4567", "hdr-secret-1111", "hdr-secret-2222", "8443/mcp", "key="} {
		if strings.Contains(all, secret) {
			t.Errorf("preview shows %q:\n%s", secret, all)
		}
	}
	for _, want := range []string{"mcp_connect__echo", filepath.Join(f.bins, "echo"), "--verbose", "env (names only): ECHO_TOKEN, LEVEL", "cwd: " + filepath.Join(f.ws.Root, "sub"),
		"mcp_connect__web", "origin: https://mcp.example.com:8443", "headers (names only): Authorization, X-Api-Key"} {
		if !strings.Contains(all, want) {
			t.Errorf("preview lacks %q:\n%s", want, all)
		}
	}
}

// TestEnvironmentAndStderr: a stdio server gets the allowlisted
// environment plus its manifest's env, never the host's other variables;
// its stderr is redacted into the private log when it closes.
func TestEnvironmentAndStderr(t *testing.T) {
	t.Setenv("DEMIURGE_TEST_HOST_SECRET", "host-secret-value")
	f := newFixture(t)
	f.server("echo", "echo", "env: {ECHO_TOKEN: tok-98765-secret}\n")
	f.ask.allow(ConnectTool("echo"))
	r := f.resolve()
	turn := f.dispatchTurn(r, "echo__env")
	out := turn.Call(context.Background(), dispatch.ToolCall{Name: "echo__env", Args: []byte(`{}`)})
	if !out.OK() {
		t.Fatalf("%s %q", out.Status, unwrapped(out.Views.Model.String()))
	}
	env := unwrapped(out.Views.Model.String())
	if strings.Contains(env, "host-secret-value") || strings.Contains(env, "DEMIURGE_TEST_HOST_SECRET") {
		t.Fatalf("host variable leaked:\n%s", env)
	}
	// The server's own output is redacted against its declared values.
	if !strings.Contains(env, "ECHO_TOKEN=<redacted:env:ECHO_TOKEN>") || !strings.Contains(env, "HOME="+filepath.Join(f.state, "runtime", "home")) {
		t.Fatalf("env:\n%s", env)
	}
	f.pool.Close()
	log := filepath.Join(f.state, "logs", "mcp-stderr.log")
	b, err := os.ReadFile(log)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(b), "tok-98765-secret") || !strings.Contains(string(b), "token=<redacted:env:ECHO_TOKEN>") || !strings.Contains(string(b), "MCP server echo closed (host closed)") {
		t.Fatalf("log:\n%s", b)
	}
	for p, want := range map[string]os.FileMode{log: 0o600, filepath.Dir(log): 0o700} {
		fi, err := os.Stat(p)
		if err != nil || fi.Mode().Perm() != want {
			t.Fatalf("%s: %v %v, want %v", p, fi.Mode(), err, want)
		}
	}
}

// TestStderrWindow: only the last StderrWindow characters are kept, which
// the tools reference sets at 12,000 (seed 000, "MCP Tools").
func TestStderrWindow(t *testing.T) {
	if StderrWindow != 12000 {
		t.Fatalf("StderrWindow = %d; the tools reference reads a 12,000-character window", StderrWindow)
	}
	tail := newStderrTail()
	tail.Write([]byte(strings.Repeat("a", 50000)))
	tail.Write([]byte(strings.Repeat("é", StderrWindow)))
	w := tail.redactedWindow(noSecrets)
	if w != strings.Repeat("é", StderrWindow) {
		t.Fatalf("window of %d runes", len([]rune(w)))
	}
	tail.Write([]byte("end"))
	if w := tail.redactedWindow(noSecrets); len([]rune(w)) != StderrWindow || !strings.HasSuffix(w, "éend") {
		t.Fatal("window does not end with the latest output")
	}
}

// TestCloseKillsTree: closing kills the server and the processes it
// started, and the pool connects nothing afterwards.
func TestCloseKillsTree(t *testing.T) {
	f := newFixture(t)
	f.server("echo", "echo", "env: {SPAWN_CHILD: \"1\"}\n")
	f.ask.allow(ConnectTool("echo"))
	r := f.resolve()
	turn := f.dispatchTurn(r, "echo__pids")
	out := turn.Call(context.Background(), dispatch.ToolCall{Name: "echo__pids", Args: []byte(`{}`)})
	var pid, pgid, child int
	if _, err := fmtSscan(unwrapped(out.Views.Model.String()), &pid, &pgid, &child); err != nil || child == 0 {
		t.Fatalf("%q: %v", unwrapped(out.Views.Model.String()), err)
	}
	if own, _ := syscall.Getpgid(0); pgid == own {
		t.Fatalf("server %d runs in the host's process group %d", pid, pgid)
	}
	f.pool.Close()
	if !processGone(pid) || !processGone(child) {
		t.Fatalf("left running: server %d, child %d", pid, child)
	}
	if r := f.resolve(); len(r.Sources) != 0 {
		t.Fatal("a closed pool resolved sources")
	}
	// A call through the old binding is refused, not sent elsewhere.
	out = turn.Call(context.Background(), dispatch.ToolCall{Name: "echo__pids", Args: []byte(`{}`)})
	if out.Status != dispatch.StatusFailed || !strings.Contains(unwrapped(out.Views.Model.String()), "disconnected") {
		t.Fatalf("%s %q", out.Status, unwrapped(out.Views.Model.String()))
	}
}

func fmtSscan(s string, p ...*int) (int, error) {
	fields := strings.Fields(s)
	for i := range p {
		if i >= len(fields) {
			return i, os.ErrInvalid
		}
		v, err := strconv.Atoi(fields[i])
		if err != nil {
			return i, err
		}
		*p[i] = v
	}
	return len(p), nil
}

// TestDeclarationChanges: a changed manifest reconnects only that server
// and asks again; the authority changing reconnects all; removing every
// declaration closes every connection.
func TestDeclarationChanges(t *testing.T) {
	f := newFixture(t)
	counter := filepath.Join(t.TempDir(), "count")
	// trust_new_tools: each start offers a new tool, which is the point.
	f.server("a", "changing_list", "env: {COUNTER_AT: "+counter+"}\ntrust_new_tools: true\n")
	f.server("b", "echo", "")
	f.ask.allow(ConnectTool("a"), ConnectTool("b"))
	r := f.resolve()
	if st := state(t, r, "a"); !slices.Equal(st.Tools, []string{"a__v1"}) {
		t.Fatalf("%+v", st)
	}
	pidB := pidOf(t, f, r, "b__pids")
	if f.ask.count() != 2 {
		t.Fatal(f.ask.count())
	}
	// Same declaration: nothing reconnects, nobody is asked.
	r = f.resolve()
	if st := state(t, r, "a"); !slices.Equal(st.Tools, []string{"a__v1"}) || f.ask.count() != 2 {
		t.Fatalf("%+v asked %d", st, f.ask.count())
	}
	// A changed declaration of a: a reconnects (its list changed), with a
	// fresh approval; b keeps its process.
	f.server("a", "changing_list", "env: {COUNTER_AT: "+counter+"}\ntrust_new_tools: true\nconnect_timeout_seconds: 9\n")
	r = f.resolve()
	if st := state(t, r, "a"); !slices.Equal(st.Tools, []string{"a__v2"}) || f.ask.count() != 3 {
		t.Fatalf("%+v asked %d", st, f.ask.count())
	}
	if pidOf(t, f, r, "b__pids") != pidB {
		t.Fatal("b was reconnected although only a changed")
	}
	// A new session (authority) evicts everything.
	f.session = "ses_2"
	r = f.resolve()
	if pidOf(t, f, r, "b__pids") == pidB || !processGone(pidB) {
		t.Fatal("b survived an authority change")
	}
	pidB = pidOf(t, f, r, "b__pids")
	// Removing every declaration closes every connection.
	os.Remove(filepath.Join(f.mcpDir, "a.yaml"))
	os.Remove(filepath.Join(f.mcpDir, "b.yaml"))
	if r := f.resolve(); len(r.Sources) != 0 || len(r.States) != 0 {
		t.Fatalf("%+v", r)
	}
	if !processGone(pidB) {
		t.Fatal("b survived the removal of its declaration")
	}
}

func pidOf(t *testing.T, f *fixture, r Resolution, tool string) int {
	t.Helper()
	turn := f.dispatchTurn(r, tool)
	out := turn.Call(context.Background(), dispatch.ToolCall{Name: tool, Args: []byte(`{}`)})
	var pid int
	if _, err := fmtSscan(unwrapped(out.Views.Model.String()), &pid); err != nil {
		t.Fatalf("%s %q", out.Status, unwrapped(out.Views.Model.String()))
	}
	return pid
}

// TestDisabled: enabled: false connects nothing and says so.
func TestDisabled(t *testing.T) {
	f := newFixture(t)
	f.server("echo", "echo", "enabled: false\n")
	if st := state(t, f.resolve(), "echo"); st.Status != StatusDisabled || f.ask.count() != 0 {
		t.Fatalf("%+v", st)
	}
}

// TestToolName is the naming rule (README, "MCP tool names"): a name
// valid for every provider as it is, or converted deterministically.
func TestToolName(t *testing.T) {
	long := strings.Repeat("x", 59)
	sum := sha256.Sum256([]byte(long))
	for _, c := range []struct {
		server, tool, want, err string
	}{
		{"docs", "search_docs", "docs__search_docs", ""},
		{"d", "a-b_C9", "d__a-b_C9", ""},
		{"docs", "has space", "docs__has_space", ""},
		{"docs", "dotted.name", "docs__dotted_name", ""},
		{"docs", "files/read", "docs__files_read", ""},
		{"docs", "café", "docs__cafe", ""},
		{"docs", "Ångström", "docs__Angstrom", ""},
		{"docs", "检索", "docs____", ""},
		{"docs", "tab\tnl\n", "docs__tab_nl_", ""},
		{"docs", long, "docs__" + strings.Repeat("x", 49) + "_" + hex.EncodeToString(sum[:4]), ""},
		{"docs", strings.Repeat("x", 58), "docs__" + strings.Repeat("x", 58), ""},
		{"docs", "", "", "empty name"},
	} {
		got, err := ToolName(c.server, c.tool)
		if got != c.want || (err == nil) != (c.err == "") || err != nil && !strings.Contains(err.Error(), c.err) {
			t.Errorf("ToolName(%q, %q) = %q, %v; want %q", c.server, c.tool, got, err, c.want)
		}
		if err == nil {
			if verr := catalog.ValidToolName(got); verr != nil {
				t.Errorf("ToolName(%q, %q) = %q, which a provider refuses: %v", c.server, c.tool, got, verr)
			}
			if again, _ := ToolName(c.server, c.tool); again != got {
				t.Errorf("ToolName(%q, %q) is not deterministic: %q then %q", c.server, c.tool, got, again)
			}
		}
	}
}

// TestManifestErrorsReported: a manifest that does not load is a failed
// server naming the file, line and field, beside healthy ones.
func TestManifestErrorsReported(t *testing.T) {
	f := newFixture(t)
	mcptest.Manifest(t, f.mcpDir, "bad", "command: x\nconnect_timeout_seconds: -1\n")
	f.server("echo", "echo", "")
	f.ask.allow(ConnectTool("echo"))
	r := f.resolve()
	if st := state(t, r, "bad"); st.Status != StatusFailed || !strings.Contains(st.Diagnostic, "bad.yaml:2:26: connect_timeout_seconds") {
		t.Fatalf("%+v", st)
	}
	if st := state(t, r, "echo"); st.Status != StatusConnected {
		t.Fatalf("%+v", st)
	}
}

var _ = time.Second

// TestManifestsCache: an unchanged manifest is not parsed again; an edited,
// added or removed one is seen on the next load.
func TestManifestsCache(t *testing.T) {
	dir := t.TempDir()
	mcptest.Manifest(t, dir, "a", "command: a\n")
	var m Manifests
	s1, _ := m.Load(dir)
	s2, _ := m.Load(dir)
	if len(s1) != 1 || s1[0].Fingerprint != s2[0].Fingerprint {
		t.Fatal(s1, s2)
	}
	mcptest.Manifest(t, dir, "a", "command: b\n") // same size, new content
	mcptest.Manifest(t, dir, "z", "command: [\n")
	s3, errs := m.Load(dir)
	if len(s3) != 1 || s3[0].Command != "b" || len(errs) != 1 || errs[0].ID != "z" {
		t.Fatalf("%+v %+v", s3, errs)
	}
	os.Remove(filepath.Join(dir, "a.yaml"))
	if s4, _ := m.Load(dir); len(s4) != 0 {
		t.Fatal(s4)
	}
}
