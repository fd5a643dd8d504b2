package mcp

import (
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"demiurge.dev/host/approval"
)

// pidIn reads the pid the scripted server wrote to file.
func pidIn(t *testing.T, file string) int {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("the server never started: %v", err)
	}
	pid, err := strconv.Atoi(string(b))
	if err != nil {
		t.Fatal(err)
	}
	return pid
}

// TestDiscoveryTimeoutClosesServer: a server that answers initialize and
// never answers tools/list fails when the connect timeout ends, not
// later, and its process is gone; so is that of a server that never
// answers initialize.
func TestDiscoveryTimeoutClosesServer(t *testing.T) {
	for _, step := range []string{"tools/list", "initialize"} {
		t.Run(strings.ReplaceAll(step, "/", "_"), func(t *testing.T) {
			f := newFixture(t)
			pidFile := filepath.Join(t.TempDir(), "pid")
			// 5 s, not 1: the timeout covers starting the server, and
			// under race beside other packages a server that hangs at
			// tools/list had not answered initialize within 1 s, so the
			// diagnostic named the wrong step.
			f.scripted("slow", "hang-at="+step, "PID_AT: "+pidFile, "connect_timeout_seconds: 5\n")
			f.ask.allow(ConnectTool("slow"))
			start := time.Now()
			st := state(t, f.resolve(), "slow")
			took := time.Since(start)
			if st.Status != StatusFailed || st.Diagnostic != "no answer to "+step+" within the connect timeout of 5s; the connection was closed" {
				t.Fatalf("%+v", st)
			}
			// A bound, not a benchmark: the timeout, plus a margin for a
			// loaded machine well short of the turn's own 150 s.
			if took < 5*time.Second || took > 8*time.Second {
				t.Errorf("the connect timeout of 5s ended discovery after %v", took)
			}
			if pid := pidIn(t, pidFile); !processGone(pid) {
				t.Fatalf("the server %d that timed out in %s is still running", pid, step)
			}
		})
	}
}

// TestDiscoveryLimitAcrossPools: the bound of four discoveries at once is
// the runtime's, not each session's: two pools with the default
// configuration, three hanging servers each, take two rounds of the 1 s
// connect timeout.
func TestDiscoveryLimitAcrossPools(t *testing.T) {
	pools := []*fixture{newFixture(t), newFixture(t)}
	for _, f := range pools {
		for _, id := range []string{"h1", "h2", "h3"} {
			f.server(id, "hang_init", "connect_timeout_seconds: 1\n")
			f.ask.allow(ConnectTool(id))
		}
	}
	start := time.Now()
	var wg sync.WaitGroup
	for _, f := range pools {
		wg.Go(func() { f.resolve() })
	}
	wg.Wait()
	if took := time.Since(start); took < 2*time.Second {
		t.Fatalf("six hanging servers in two sessions finished in %v: more than four ran at once", took)
	}
}

// TestExcludeBeforeNaming: tools.exclude applies to the server's own names
// before they are made model-visible, so an excluded tool whose name could
// not be offered is not reported as refused.
func TestExcludeBeforeNaming(t *testing.T) {
	f := newFixture(t)
	f.server("names", "bad_name", "tools: {exclude: [\"has space\"]}\n")
	f.ask.allow(ConnectTool("names"))
	st := state(t, f.resolve(), "names")
	if st.Status != StatusConnected || !slices.Contains(st.Tools, "names__good") || slices.Contains(st.Tools, "names__has_space") {
		t.Fatalf("%+v", st)
	}
	var sawOther bool
	for _, d := range st.Refused {
		if strings.Contains(d, `"has space"`) {
			t.Errorf("an excluded tool was named and refused: %s", d)
		}
		sawOther = sawOther || strings.Contains(d, `"stringly"`)
	}
	if !sawOther {
		t.Errorf("the other invalid names are no longer refused: %q", st.Refused)
	}
}

// TestChangedDeclarationDenied: a changed declaration closes the old
// connection at once; when its connect approval is then denied, the new
// server never starts.
func TestChangedDeclarationDenied(t *testing.T) {
	f := newFixture(t)
	dir := t.TempDir()
	echo := filepath.Join(f.bins, "echo")
	f.shellServer("a", "touch "+filepath.Join(dir, "first")+"; exec "+echo, "")
	f.ask.allow(ConnectTool("a"))
	r := f.resolve()
	if st := state(t, r, "a"); st.Status != StatusConnected {
		t.Fatalf("%+v", st)
	}
	old := pidOf(t, f, r, "a__pids")
	second := filepath.Join(dir, "second")
	f.shellServer("a", "touch "+second+"; exec "+echo, "")
	f.ask.answers[ConnectTool("a")] = approval.Deny
	r = f.resolve()
	if st := state(t, r, "a"); st.Status != StatusDenied || !strings.Contains(st.Diagnostic, "not approved") || len(r.Sources) != 0 {
		t.Fatalf("%+v, %d sources", st, len(r.Sources))
	}
	if !processGone(old) {
		t.Fatalf("the old server %d outlived its changed, denied declaration", old)
	}
	notStarted(t, second, "for a denied declaration")
}

// TestNegativeCacheWindow: with the default configuration a failed server
// is retried 30 s after it failed.
func TestNegativeCacheWindow(t *testing.T) {
	f := newFixture(t)
	f.server("hang", "hang_init", "connect_timeout_seconds: 1\n")
	f.ask.allow(ConnectTool("hang"))
	start := time.Now()
	st := state(t, f.resolve(), "hang")
	end := time.Now()
	if st.Status != StatusFailed || st.RetryAt.Before(start.Add(30*time.Second)) || st.RetryAt.After(end.Add(30*time.Second)) {
		t.Fatalf("retry at %v for a failure between %v and %v: %+v", st.RetryAt, start, end, st)
	}
}

// TestDuplicateToolRefused: a server listing one tool twice offers
// neither, and says so once; its other tools stay.
func TestDuplicateToolRefused(t *testing.T) {
	f := newFixture(t)
	f.scripted("d", "", `TOOLS: '[{"name":"t","inputSchema":{"type":"object"}},{"name":"u","inputSchema":{"type":"object"}},{"name":"t","inputSchema":{"type":"object"}}]'`, "")
	f.ask.allow(ConnectTool("d"))
	st := state(t, f.resolve(), "d")
	if st.Status != StatusConnected || !slices.Equal(st.Tools, []string{"d__u"}) {
		t.Fatalf("%+v", st)
	}
	if len(st.Refused) != 1 || !strings.Contains(st.Refused[0], `MCP server d lists tool "t" 2 times`) {
		t.Fatalf("refused: %q", st.Refused)
	}
}
