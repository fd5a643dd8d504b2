package toolhost

import (
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/plugins/plugintest"
)

// probeModule is an authored tool that tries one thing and says how it
// went: "ok", "ok:<content>" for a read, or "denied: <error>".
const probeModule = `import os, socket, tempfile

def execute(ctx, args):
    a, p = args["action"], args.get("path", "")
    try:
        if a == "write":
            with open(p, "a") as f:
                f.write("planted\n")
            return "ok"
        if a == "read":
            with open(p) as f:
                return "ok:" + f.read()
        if a == "connect":
            s = socket.create_connection(("127.0.0.1", int(args["port"])), timeout=3)
            s.close()
            return "ok"
        if a == "tmp":
            d = tempfile.gettempdir()
            with open(os.path.join(d, "scratch"), "w") as f:
                f.write("x")
            return "ok"
    except Exception as e:
        return "denied: %s: %s" % (type(e).__name__, e)
    return "unknown action"
`

const (
	probeWriter = "risk: low\napproval_policy: auto\ncapabilities: [fs.write]\n"
	probeReader = "risk: low\napproval_policy: auto\n"
	probeSecret = "sk-live-sandbox-0123456789"
)

// loopbackListener counts the connections a sandboxed tool manages to
// make to it.
func loopbackListener(t *testing.T) (port int, accepted *atomic.Int32) {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	accepted = &atomic.Int32{}
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted.Add(1)
			c.Close()
		}
	}()
	return ln.Addr().(*net.TCPAddr).Port, accepted
}

// probeHost opens a host whose core lives in its workspace (so agent.yaml
// is a workspace file the tool could reach), with a .env and a README.
func probeHost(t *testing.T, sandboxMode string, approver *recorder) (h *Host, ws string) {
	t.Helper()
	withAuthored(t)
	return openProbeHost(t, sandboxMode, approver)
}

// probeHostTB is probeHost for a benchmark (approvals always allowed).
func probeHostTB(b *testing.B, sandboxMode string) (*Host, string) {
	b.Helper()
	if err := plugintest.BuildOrCopy(builtinDir, AuthoredToolset, "demiurge.dev/plugins/authored"); err != nil {
		b.Fatal(err)
	}
	return openProbeHost(b, sandboxMode, &recorder{})
}

func openProbeHost(t testing.TB, sandboxMode string, approver *recorder) (h *Host, ws string) {
	t.Helper()
	ws = authoredCore(t, "slots: {tools: agent/tools}\n", map[string][2]string{
		"probe_writer": {probeWriter, probeModule}, "probe_reader": {probeReader, probeModule}})
	for name, body := range map[string]string{".env": "TOKEN=" + probeSecret + "\n", "README.md": "hello\n"} {
		if err := os.WriteFile(filepath.Join(ws, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	opts := Options{CoreDir: ws, Workspace: ws, StateDir: t.TempDir(), BuiltinPluginDir: builtinDir, Sandbox: sandboxMode}
	if approver != nil {
		opts.Approver = approver
	}
	h, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h, ws
}

func probe(t *testing.T, h *Host, tool string, args map[string]any) dispatch.Outcome {
	t.Helper()
	return probeTB(t, h, tool, args)
}

func probeTB(t testing.TB, h *Host, tool string, args map[string]any) dispatch.Outcome {
	t.Helper()
	b, _ := json.Marshal(args)
	turn, err := h.NewTurn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	return turn.Call(ctx, dispatch.ToolCall{ID: "c1", Name: tool, Args: b})
}

type probeCase struct {
	name, tool string
	args       func(ws, outside string, port int) map[string]any
	// sandboxed and off are the outcomes wanted: true means the action
	// succeeded.
	sandboxed, off bool
	// changed is the file whose content must stay as it was when the
	// action is refused.
	changed func(ws, outside string) string
}

var probeCases = []probeCase{
	{"write outside the workspace", "probe_writer",
		func(_, out string, _ int) map[string]any {
			return map[string]any{"action": "write", "path": filepath.Join(out, "planted")}
		},
		false, true, func(_, out string) string { return filepath.Join(out, "planted") }},
	{"write agent.yaml", "probe_writer",
		func(ws, _ string, _ int) map[string]any {
			return map[string]any{"action": "write", "path": filepath.Join(ws, "agent.yaml")}
		},
		false, true, func(ws, _ string) string { return filepath.Join(ws, "agent.yaml") }},
	{"write the tool's own module", "probe_writer",
		func(ws, _ string, _ int) map[string]any {
			return map[string]any{"action": "write", "path": filepath.Join(ws, "agent", "tools", "probe_writer", "module.py")}
		},
		false, true, func(ws, _ string) string { return filepath.Join(ws, "agent", "tools", "probe_writer", "module.py") }},
	{"read the workspace .env", "probe_writer",
		func(ws, _ string, _ int) map[string]any {
			return map[string]any{"action": "read", "path": filepath.Join(ws, ".env")}
		},
		false, true, nil},
	{"connect to a loopback listener", "probe_writer",
		func(_, _ string, port int) map[string]any { return map[string]any{"action": "connect", "port": port} },
		false, true, nil},
	{"a read-only tool writes the workspace", "probe_reader",
		func(ws, _ string, _ int) map[string]any {
			return map[string]any{"action": "write", "path": filepath.Join(ws, "NOTES.md")}
		},
		false, true, func(ws, _ string) string { return filepath.Join(ws, "NOTES.md") }},
	// The legitimate jobs.
	{"a writing tool writes the workspace", "probe_writer",
		func(ws, _ string, _ int) map[string]any {
			return map[string]any{"action": "write", "path": filepath.Join(ws, "NOTES.md")}
		},
		true, true, nil},
	{"a read-only tool reads the workspace", "probe_reader",
		func(ws, _ string, _ int) map[string]any {
			return map[string]any{"action": "read", "path": filepath.Join(ws, "README.md")}
		},
		true, true, nil},
	{"a read-only tool writes its private tmp dir", "probe_reader",
		func(string, string, int) map[string]any { return map[string]any{"action": "tmp"} },
		true, true, nil},
}

// The attacks of an authored tool fail under the sandbox its capabilities
// give it, and the same calls succeed with the operator's --sandbox off
// (so the test can tell a refusal from a broken probe).
func TestAuthoredToolsRunSandboxed(t *testing.T) {
	for _, mode := range []string{"", "off"} {
		t.Run("sandbox="+mode, func(t *testing.T) {
			h, ws := probeHost(t, mode, &recorder{})
			for _, tc := range probeCases {
				t.Run(tc.name, func(t *testing.T) {
					outside := t.TempDir()
					port, accepted := loopbackListener(t)
					var before []byte
					if tc.changed != nil {
						before, _ = os.ReadFile(tc.changed(ws, outside))
					}
					out := probe(t, h, tc.tool, tc.args(ws, outside, port))
					if out.Status != dispatch.StatusOK {
						t.Fatalf("status = %s (%s)", out.Status, out.Views.Model.String())
					}
					want := tc.sandboxed
					if mode == "off" {
						want = tc.off
					}
					got := strings.HasPrefix(out.Views.Model.String(), "ok")
					if strings.Contains(out.Views.Model.String(), probeSecret) {
						got = true // the tool read the secret (whatever the views show)
					}
					if tc.name == "read the workspace .env" {
						got = strings.Contains(out.Views.Model.String(), "TOKEN=")
					}
					if got != want {
						t.Errorf("succeeded = %v, want %v: %q", got, want, out.Views.Model.String())
					}
					if tc.changed != nil && !want {
						if after, _ := os.ReadFile(tc.changed(ws, outside)); string(after) != string(before) {
							t.Errorf("%s changed to %q", tc.changed(ws, outside), after)
						}
					}
					connects := want && strings.Contains(tc.name, "connect")
					// The tool's connection is in the listener's backlog
					// when it returns; the accepting goroutine counts it
					// when it runs (late under -race).
					for deadline := time.Now().Add(5 * time.Second); connects && accepted.Load() == 0 && time.Now().Before(deadline); {
						time.Sleep(10 * time.Millisecond)
					}
					if n := accepted.Load(); (n > 0) != connects {
						t.Errorf("the listener accepted %d connections", n)
					}
				})
			}
		})
	}
}

// The operator's --sandbox off is said on the approval card of an
// authored call, which then asks even for an auto tool.
func TestAuthoredSandboxOffIsOnTheCard(t *testing.T) {
	rec := &recorder{}
	h, ws := probeHost(t, "off", rec)
	out := probe(t, h, "probe_reader", map[string]any{"action": "read", "path": filepath.Join(ws, "README.md")})
	if out.Status != dispatch.StatusOK {
		t.Fatalf("status = %s (%s)", out.Status, out.Views.Model.String())
	}
	if len(rec.reqs) != 1 || !strings.Contains(strings.Join(rec.reqs[0].Reasons, "\n"), "runs unconfined") {
		t.Errorf("approval requests = %+v, want one saying the tool runs unconfined", rec.reqs)
	}
}
