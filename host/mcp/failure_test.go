package mcp

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"demiurge.dev/host/dispatch"
)

// TestFailureServers: each misbehaving server fails (or loses only its
// bad tools) with a diagnostic, and never takes the healthy server down.
func TestFailureServers(t *testing.T) {
	f := newFixture(t)
	f.server("ok", "echo", "")
	f.server("hang", "hang_init", "connect_timeout_seconds: 1\n")
	f.server("crash", "crash_list", "")
	f.server("names", "bad_name", "")
	f.server("huge", "huge_list", "")
	f.server("hugefew", "huge_list", "tools: {include: [t0001, t2999], exclude: [t2999]}\n")
	f.server("garbage", "garbage_stdout", "")
	for _, id := range []string{"ok", "hang", "crash", "names", "huge", "hugefew", "garbage"} {
		f.ask.allow(ConnectTool(id))
	}
	r := f.resolve()
	for _, c := range []struct {
		id     string
		status Status
		diag   string
		tools  []string
	}{
		{"ok", StatusConnected, "", []string{"ok__echo", "ok__env", "ok__pick", "ok__pids"}},
		{"hang", StatusFailed, "no answer to initialize within the connect timeout of 1s", nil},
		{"crash", StatusFailed, "tools/list", nil},
		{"names", StatusConnected, "", []string{"names__cafe", "names__dotted_name", "names__good", "names__has_space", "names__" + strings.Repeat("long", 12) + "_7c474ff9"}},
		{"huge", StatusFailed, "offers 3000 tools, more than the 512", nil},
		{"hugefew", StatusConnected, "", []string{"hugefew__t0001"}},
		{"garbage", StatusConnected, "", []string{"garbage__still_works"}},
	} {
		st := state(t, r, c.id)
		if st.Status != c.status || !strings.Contains(st.Diagnostic, c.diag) || !slices.Equal(st.Tools, c.tools) {
			t.Errorf("%s: %+v", c.id, st)
		}
		if c.status == StatusFailed && st.RetryAt.IsZero() {
			t.Errorf("%s: a failure without a retry time", c.id)
		}
	}
	names := state(t, r, "names")
	for _, want := range []string{`"stringly" is left out: its input schema`} {
		found := false
		for _, d := range names.Refused {
			found = found || strings.Contains(d, want)
		}
		if !found {
			t.Errorf("no diagnostic about %s in %q", want, names.Refused)
		}
	}
	// The crash's stderr reached the log.
	b, _ := os.ReadFile(filepath.Join(f.state, "logs", "mcp-stderr.log"))
	if !strings.Contains(string(b), "crash_list: crashing in tools/list") {
		t.Errorf("stderr log:\n%s", b)
	}
	// Garbage on stdout does not break calls.
	turn := f.dispatchTurn(r, "garbage__still_works")
	if out := turn.Call(context.Background(), dispatch.ToolCall{Name: "garbage__still_works", Args: []byte(`{}`)}); !out.OK() || unwrapped(out.Views.Model.String()) != "fine" {
		t.Errorf("%s %q", out.Status, unwrapped(out.Views.Model.String()))
	}
	// A failed server is not retried within its window: nobody is asked
	// and nothing is started again.
	asked := f.ask.count()
	r = f.resolve()
	if st := state(t, r, "hang"); st.Status != StatusFailed || f.ask.count() != asked {
		t.Errorf("%+v, asked %d then %d", st, asked, f.ask.count())
	}
}

// TestCancellationReachesServer: a call that never returns is cancelled at
// the server when its context ends.
func TestCancellationReachesServer(t *testing.T) {
	f := newFixture(t)
	marker := filepath.Join(t.TempDir(), "marker")
	f.server("slow", "never_returns", "env: {MARKER_AT: "+marker+"}\n")
	f.ask.allow(ConnectTool("slow"))
	r := f.resolve()
	turn := f.dispatchTurn(r, "slow__wait")
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	out := turn.Call(ctx, dispatch.ToolCall{Name: "slow__wait", Args: []byte(`{}`)})
	if out.Status != dispatch.StatusFailed || !strings.Contains(unwrapped(out.Views.Model.String()), "cancelled") {
		t.Fatalf("%s %q", out.Status, unwrapped(out.Views.Model.String()))
	}
	deadline := time.Now().Add(5 * time.Second)
	for {
		if b, err := os.ReadFile(marker); err == nil && string(b) == "cancelled" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the server never saw the cancellation")
		}
		time.Sleep(20 * time.Millisecond)
	}
	// The connection stays usable.
	if st := state(t, f.resolve(), "slow"); st.Status != StatusConnected {
		t.Fatalf("%+v", st)
	}
}

// TestTenServers: three hang, two crash, one is denied: the catalog is
// built with the four healthy ones within the connect timeout plus a
// margin, and each failure is reported.
func TestTenServers(t *testing.T) {
	f := newFixture(t)
	f.caps = []string{"mcp.call:*"}
	for _, id := range []string{"h1", "h2", "h3"} {
		f.server(id, "hang_init", "connect_timeout_seconds: 2\n")
	}
	for _, id := range []string{"c1", "c2"} {
		f.server(id, "crash_list", "connect_timeout_seconds: 2\n")
	}
	for _, id := range []string{"e1", "e2", "e3", "e4", "denied"} {
		f.server(id, "echo", "connect_timeout_seconds: 2\n")
	}
	for _, id := range []string{"h1", "h2", "h3", "c1", "c2", "e1", "e2", "e3", "e4"} {
		f.caps = append(f.caps, "mcp.connect:"+id)
		f.ask.allow(ConnectTool(id))
	}
	start := time.Now()
	r := f.resolve()
	took := time.Since(start)
	t.Logf("ten servers resolved in %v", took)
	// A bound, not a benchmark: one connect timeout (2 s) plus a margin
	// for a loaded machine (the six quick servers share the one slot the
	// hangs leave); the three hangs one after another would need 6 s.
	if took > 5*time.Second {
		t.Errorf("resolution took %v", took)
	}
	if len(r.Sources) != 4 {
		t.Errorf("%d sources", len(r.Sources))
	}
	for _, id := range []string{"h1", "h2", "h3"} {
		if st := state(t, r, id); st.Status != StatusFailed || !strings.Contains(st.Diagnostic, "initialize") {
			t.Errorf("%+v", st)
		}
	}
	for _, id := range []string{"c1", "c2"} {
		if st := state(t, r, id); st.Status != StatusFailed || !strings.Contains(st.Diagnostic, "tools/list") {
			t.Errorf("%+v", st)
		}
	}
	if st := state(t, r, "denied"); st.Status != StatusDenied {
		t.Errorf("%+v", st)
	}
	for _, id := range []string{"e1", "e2", "e3", "e4"} {
		if st := state(t, r, id); st.Status != StatusConnected {
			t.Errorf("%+v", st)
		}
	}
}

// TestDiscoveryLimit: at most four servers are discovered at once: six
// servers that hang for a 1 s timeout take two rounds.
func TestDiscoveryLimit(t *testing.T) {
	f := newFixture(t, func(c *Config) { c.Limiter = NewLimiter(MaxConcurrentDiscovery) })
	for i := range 6 {
		id := "h" + string(rune('a'+i))
		f.server(id, "hang_init", "connect_timeout_seconds: 1\n")
		f.ask.allow(ConnectTool(id))
	}
	start := time.Now()
	f.resolve()
	if took := time.Since(start); took < 2*time.Second {
		t.Fatalf("six hanging servers finished in %v: more than four ran at once", took)
	}
}

// TestKilledServerReconnects: a server killed between turns is failed on
// the next turn, not reconnected before its retry window ends, and
// reconnected on the first turn after it; a healthy server beside it keeps
// its connection (and process) throughout.
func TestKilledServerReconnects(t *testing.T) {
	const window = 700 * time.Millisecond
	f := newFixture(t, func(c *Config) { c.NegativeTTL = window })
	f.server("echo", "echo", "")
	f.server("steady", "echo", "")
	f.ask.allow(ConnectTool("echo"), ConnectTool("steady"))
	r := f.resolve()
	pid := pidOf(t, f, r, "echo__pids")
	steady := pidOf(t, f, r, "steady__pids")
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if !processGone(pid) {
		t.Fatal("not killed")
	}
	waitFor(t, func() bool { return !f.pool.conns["echo"].c.alive() })
	killed := time.Now()
	st := state(t, f.resolve(), "echo")
	if st.Status != StatusFailed || !strings.Contains(st.Diagnostic, "connection ended") || st.RetryAt.Before(killed) {
		t.Fatalf("%+v", st)
	}
	if st := state(t, f.resolve(), "echo"); st.Status != StatusFailed {
		t.Fatalf("reconnected inside the window: %+v", st)
	}
	time.Sleep(time.Until(st.RetryAt) + 10*time.Millisecond)
	r = f.resolve()
	if st := state(t, r, "echo"); st.Status != StatusConnected {
		t.Fatalf("%+v", st)
	}
	if pidOf(t, f, r, "echo__pids") == pid {
		t.Fatal("same process")
	}
	if pidOf(t, f, r, "steady__pids") != steady || f.ask.count() != 3 {
		t.Fatalf("the healthy server was reconnected too (asked %d times)", f.ask.count())
	}
}

func waitFor(t *testing.T, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(3 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not reached in 3 s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestProtocolPinned: the first message a server receives is initialize
// with the manifest's protocol version; the 2026-07-28 discovery probe,
// which misdetects servers, is never sent.
func TestProtocolPinned(t *testing.T) {
	f := newFixture(t)
	record := filepath.Join(t.TempDir(), "record")
	f.server("pin", "hang_init", "connect_timeout_seconds: 1\nprotocol_version: 2025-06-18\nenv: {RECORD_AT: "+record+"}\n")
	f.ask.allow(ConnectTool("pin"))
	f.resolve()
	b, err := os.ReadFile(record)
	if err != nil {
		t.Fatal(err)
	}
	first, _, _ := strings.Cut(string(b), "\n")
	if !strings.Contains(first, `"method":"initialize"`) || !strings.Contains(first, `"protocolVersion":"2025-06-18"`) || strings.Contains(string(b), "server/discover") {
		t.Fatalf("the server was sent:\n%s", b)
	}
}

// TestStdoutLineBound: a server that writes without ever ending a line is
// cut off at MaxStdioLine instead of growing the host's memory.
func TestStdoutLineBound(t *testing.T) {
	f := newFixture(t)
	f.server("flood", "garbage_stdout", "env: {HUGE_LINE: \"1\"}\nconnect_timeout_seconds: 20\n")
	f.ask.allow(ConnectTool("flood"))
	st := state(t, f.resolve(), "flood")
	if st.Status != StatusFailed || !strings.Contains(st.Diagnostic, "without a newline") {
		t.Fatalf("%+v", st)
	}
}

// TestTestBypassesRetryWindow: `mcp test` connects now, through the gate,
// even inside a failed server's retry window.
func TestTestBypassesRetryWindow(t *testing.T) {
	f := newFixture(t)
	f.server("hang", "hang_init", "connect_timeout_seconds: 1\n")
	f.ask.allow(ConnectTool("hang"))
	if st := state(t, f.resolve(), "hang"); st.Status != StatusFailed {
		t.Fatalf("%+v", st)
	}
	asked := f.ask.count()
	st, ok := f.pool.Test(context.Background(), f.turn(), "hang")
	if !ok || st.Status != StatusFailed || !strings.Contains(st.Diagnostic, "initialize") || f.ask.count() != asked+1 {
		t.Fatalf("%+v %v, asked %d then %d", st, ok, asked, f.ask.count())
	}
	if _, ok := f.pool.Test(context.Background(), f.turn(), "nosuch"); ok {
		t.Fatal("tested an undeclared server")
	}
}

// TestAToolListIsBoundedWhileItIsRead: a server's tools/list pages were
// each bounded (MaxMessageBytes, 16 MiB) but not their sum: a server could
// hand the host 100 pages (1.6 GiB) before the count of its tools was
// judged, and tools that fit the count (300 descriptions of 60 KB: 18 MB)
// were pinned (past pinFileMax the server's next connect cannot read its
// pins back) and sent to the model with every request. The list is
// refused once its pages pass maxListBytes (what one message may hold),
// with nothing pinned; a server within it connects.
func TestAToolListIsBoundedWhileItIsRead(t *testing.T) {
	f := newFixture(t)
	// A connect timeout far above what reading 18 MB takes: the test is
	// of the size bound, and under -race on a busy machine the default
	// 10 s ran out first (CI, stop 55).
	f.server("wordy", "huge_list", "env: {HUGE_COUNT: \"300\", HUGE_DESC: \"60000\"}\nconnect_timeout_seconds: 120\n")
	f.server("fine", "huge_list", "env: {HUGE_COUNT: \"300\", HUGE_DESC: \"20000\"}\nconnect_timeout_seconds: 120\n")
	f.ask.allow(ConnectTool("wordy"), ConnectTool("fine"))
	r := f.resolve()
	wordy := state(t, r, "wordy")
	if wordy.Status != StatusFailed || !strings.Contains(wordy.Diagnostic, "tool list is over 16777216 bytes") {
		t.Fatalf("an 18 MB tool list: %s: %s", wordy.Status, wordy.Diagnostic)
	}
	if _, err := os.Stat(PinFile(f.state, "wordy")); !os.IsNotExist(err) {
		t.Errorf("the refused list was pinned: %v", err)
	}
	if fine := state(t, r, "fine"); fine.Status != StatusConnected || len(fine.Tools) != 300 {
		t.Errorf("a 6 MB tool list: %s %q, %d tools", fine.Status, fine.Diagnostic, len(fine.Tools))
	}
}

// TestAToolWithInvisibleTextIsLeftOut: a tool's description and schema go
// to the model as they are, outside any envelope or screening, and are
// pinned on first connect unreviewed. Unicode tag characters (U+E0000–
// U+E007F, "ASCII smuggling") spell instructions the model reads and no
// terminal shows (tools show printed them as nothing), and bidi controls
// make the operator read other text than the model. A tool holding either
// in its name, description or schema (a property's description, a key,
// written raw or as JSON escapes) is left out with a diagnostic; an
// emoji's zero-width joiner is not such a character.
func TestAToolWithInvisibleTextIsLeftOut(t *testing.T) {
	f := newFixture(t)
	f.ask.allow(ConnectTool("docs"))
	tool := func(name, desc, props string) string {
		return `{"name":"` + name + `","description":"` + desc + `","inputSchema":{"type":"object","properties":{` + props + `}}}`
	}
	f.scriptedTools("docs", "["+
		tool("tags", `Searches.\udb40\udc41\udb40\udc6c\udb40\udc73\udb40\udc6f`, "")+","+
		tool("rawtags", "Searches.\U000E0041", "")+","+
		tool("bidi", "Lists.", `"q":{"type":"string","description":"a \u202eterm"}`)+","+
		tool("bidikey", "Lists.", `"q\u2066":{"type":"string"}`)+","+
		tool("fine", "Codes 👨\u200d💻 things.", `"q":{"type":"string","description":"a term"}`)+"]", "")
	st := state(t, f.resolve(), "docs")
	if !slices.Equal(st.Tools, []string{"docs__fine"}) {
		t.Fatalf("tools offered: %q (refused %q)", st.Tools, st.Refused)
	}
	if len(st.Refused) != 4 {
		t.Fatalf("refused: %q", st.Refused)
	}
	for _, d := range st.Refused {
		if !strings.Contains(d, "invisible") {
			t.Errorf("diagnostic: %s", d)
		}
	}
}

// TestASchemaThatCostsTheHostExponentialWorkIsLeftOut: a tool's input
// schema is compiled and checked on the host, before approval, for every
// call. Twenty $defs each an anyOf of two $refs to the next (2 KB) took
// the checker 26 s for {"x":1}, thirty would take hours, and nothing ends
// it (the check takes no context). A schema whose $refs, followed, reach
// more than maxSchemaExpansion subschemas is left out, and so is one that
// refers in a way that cannot be followed here ($dynamicRef, an anchor, a
// percent-encoded pointer, a nested $id); $defs used many times and a
// recursive schema are fine.
func TestASchemaThatCostsTheHostExponentialWorkIsLeftOut(t *testing.T) {
	f := newFixture(t)
	f.ask.allow(ConnectTool("docs"))
	var defs []string
	for i := range 30 {
		defs = append(defs, fmt.Sprintf(`"d%d":{"anyOf":[{"$ref":"#/$defs/d%d"},{"$ref":"#/$defs/d%d"}]}`, i, i+1, i+1))
	}
	defs = append(defs, `"d30":{"type":"string"}`)
	tool := func(name, schema string) string { return `{"name":"` + name + `","inputSchema":` + schema + `}` }
	f.scriptedTools("docs", "["+
		tool("doubling", `{"type":"object","properties":{"x":{"$ref":"#/$defs/d0"}},"$defs":{`+strings.Join(defs, ",")+`}}`)+","+
		tool("anchored", `{"type":"object","properties":{"x":{"$ref":"#a"}},"$defs":{"a":{"$anchor":"a","type":"string"}}}`)+","+
		tool("dynamic", `{"type":"object","properties":{"x":{"$dynamicRef":"#/$defs/a"}},"$defs":{"a":{"type":"string"}}}`)+","+
		tool("encoded", `{"type":"object","properties":{"x":{"$ref":"#/$defs/a%20b"}},"$defs":{"a b":{"type":"string"}}}`)+","+
		tool("nestedid", `{"type":"object","properties":{"x":{"$id":"https://x.invalid/s","$ref":"#/$defs/a","$defs":{"a":{"type":"string"}}}}}`)+","+
		tool("reused", `{"type":"object","properties":{"a":{"$ref":"#/$defs/p"},"b":{"$ref":"#/$defs/p"},"c":{"type":"array","items":{"$ref":"#/$defs/p"}}},"$defs":{"p":{"type":"object","properties":{"x":{"type":"string"},"y":{"type":"number"}}}}}`)+","+
		tool("tree", `{"type":"object","properties":{"root":{"$ref":"#/$defs/node"}},"$defs":{"node":{"type":"object","properties":{"kids":{"type":"array","items":{"$ref":"#/$defs/node"}}}}}}`)+
		"]", "")
	start := time.Now()
	st := state(t, f.resolve(), "docs")
	if took := time.Since(start); took > 10*time.Second {
		t.Errorf("the connect took %s", took)
	}
	if !slices.Equal(st.Tools, []string{"docs__reused", "docs__tree"}) {
		t.Fatalf("tools offered: %q (refused %q)", st.Tools, st.Refused)
	}
	if len(st.Refused) != 5 {
		t.Fatalf("refused: %q", st.Refused)
	}
	for _, d := range st.Refused {
		if !strings.Contains(d, "its input schema") {
			t.Errorf("diagnostic: %s", d)
		}
	}
}

// TestCallerDeadlineIsNotCalledTheConnectTimeout: when the caller's own
// deadline (a turn's) ends the wait for a server before its connect
// timeout, the diagnostic says so; naming the connect timeout, as it did,
// sent the operator (and stop 60's flake hunt) to the wrong setting.
func TestCallerDeadlineIsNotCalledTheConnectTimeout(t *testing.T) {
	f := newFixture(t)
	f.server("hang", "hang_init", "connect_timeout_seconds: 60\n")
	f.ask.allow(ConnectTool("hang"))
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	start := time.Now()
	st := state(t, f.pool.Resolve(ctx, f.turn()), "hang")
	if took := time.Since(start); took > 30*time.Second {
		t.Fatalf("the caller's deadline of 2s did not end the wait: %v", took)
	}
	if st.Status != StatusFailed || !strings.Contains(st.Diagnostic, "before the caller's deadline") ||
		strings.Contains(st.Diagnostic, "within the connect timeout") {
		t.Fatalf("%+v", st)
	}
}
