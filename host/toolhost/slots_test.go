package toolhost

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/host/core"
	"demiurge.dev/host/pipeline"
)

// slotCore is a core whose slots/ hold real Python slots; it has no
// pipelines.yaml, so a test names them in the stage it runs (or writes
// one).
func slotCore(t *testing.T, slots map[string][2]string) string {
	t.Helper()
	dir := writeCore(t, "capabilities: [fs.read]\n")
	for id, f := range slots {
		sd := filepath.Join(dir, core.SlotsDir, id)
		if err := os.MkdirAll(sd, 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sd, core.SlotFile), []byte(withSlotTimeout(f[0])), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sd, "module.py"), []byte(f[1]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// testSlotTimeout is the timeout_seconds of a test's slot.yaml that sets
// none. The default (core.DefaultSlotTimeout, 10 s) bounds the slot's
// first run, which starts the authored runtime and its Python worker in
// the sandbox: under make race (eight packages on two cores) that took
// longer, and slots that do not test their timeout failed with "did not
// finish within timeout_seconds (10s)".
const testSlotTimeout = "timeout_seconds: 120\n"

// withSlotTimeout is a slot.yaml with testSlotTimeout unless it sets a
// timeout_seconds of its own.
func withSlotTimeout(yaml string) string {
	if strings.Contains(yaml, "timeout_seconds:") {
		return yaml
	}
	return yaml + testSlotTimeout
}

// writerSlot is a slot's code that needs fs.write and, given it, creates
// the workspace file named.
func writerSlot(file string) string {
	return `import os
def run(ctx, args):
    ctx.capability.require("fs.write")
    open(os.path.join(ctx.workspace, ` + file + `), "w").close()
    return {"context": "wrote"}
`
}

// slotHost opens a host with opts, closed when the test ends, and the
// slot invoker of a new turn of it.
func slotHost(t *testing.T, opts Options) (*Host, pipeline.Invoker) {
	t.Helper()
	opts.BuiltinPluginDir = builtinDir
	h, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	turn, err := h.NewTurn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return h, h.SlotInvoker(turn)
}

// slotResults opens a host with opts and runs each slot of want alone in
// the input stage of one turn, checking its outcome: "ok: CONTEXT", or
// "error: " and the failure without the "pipeline slot ID failed: " prefix.
func slotResults(t *testing.T, opts Options, want map[string]string) {
	t.Helper()
	h, inv := slotHost(t, opts)
	for id, want := range want {
		res, err := pipeline.RunStage(context.Background(), pipeline.StageInput, []core.Group{{id}}, h.Core.Slots, inv, "hi")
		got := ""
		switch {
		case err != nil:
			got = "error: " + strings.TrimPrefix(err.Error(), "pipeline slot "+id+" failed: ")
		case len(res.Contexts) == 1:
			got = "ok: " + res.Contexts[0].Text
		}
		if got != want {
			t.Errorf("%s: %q\nwant %q", id, got, want)
		}
	}
}

// Real Python slots through the authored runtime in the real sandbox:
// context, a replacement, the slot's read-only view of the workspace, a
// slot that raises, one that hangs past timeout_seconds, one that returns
// something malformed and one that returns something huge, each under
// failure_policy skip in a parallel group beside a good slot.
func TestSlotsRunThroughTheAuthoredRuntimeSandboxed(t *testing.T) {
	withAuthored(t)
	dir := slotCore(t, map[string][2]string{
		"tag": {"description: tags\n", `import os
def run(ctx, args):
    try:
        open(os.path.join(ctx.workspace, "slot-wrote"), "w").close()
        wrote = "wrote"
    except OSError:
        wrote = "read-only"
    return {"context": "%s saw %s (%s)" % (ctx.slot_id, args["text"], wrote), "replace": args["text"].upper()}
`},
		"raises":    {"failure_policy: skip\n", "def run(ctx, args):\n    raise ValueError('bad slot')\n"},
		"hangs":     {"failure_policy: skip\ntimeout_seconds: 1\n", "import time\ndef run(ctx, args):\n    time.sleep(600)\n"},
		"malformed": {"failure_policy: skip\n", "def run(ctx, args):\n    return ['not', 'a', 'change']\n"},
		"huge":      {"failure_policy: skip\n", "def run(ctx, args):\n    return {'context': 'x' * 70000}\n"},
		"fails":     {"timeout_seconds: 1\n", "import time\ndef run(ctx, args):\n    time.sleep(600)\n"},
	})
	h, inv := slotHost(t, Options{CoreDir: dir, Workspace: dir, StateDir: t.TempDir()})
	groups := []core.Group{{core.BaseInput}, {"tag", "raises", "hangs", "malformed", "huge"}}
	res, err := pipeline.RunStage(context.Background(), pipeline.StageInput, groups, h.Core.Slots, inv, "hello")
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "HELLO" || len(res.Contexts) != 1 || res.Contexts[0].Text != "tag saw hello (read-only)" {
		t.Errorf("result = %+v", res)
	}
	if _, err := os.Stat(filepath.Join(dir, "slot-wrote")); err == nil {
		t.Error("a slot declaring no fs.write wrote the workspace")
	}
	skipped := strings.Join(res.Skipped, "\n")
	for _, want := range []string{"raises: raises raised ValueError: bad slot", "hangs: did not finish within timeout_seconds (1s)",
		"malformed: returned something that is not a change", "huge: returned 700", "over the 65536-byte bound"} {
		if !strings.Contains(skipped, want) {
			t.Errorf("skipped = %q; want %q", skipped, want)
		}
	}
	_, err = pipeline.RunStage(context.Background(), pipeline.StageOutput, []core.Group{{"tag", "fails"}}, h.Core.Slots, inv, "answer")
	if err == nil || err.Error() != "pipeline slot fails failed: did not finish within timeout_seconds (1s)" {
		t.Errorf("failure_policy fail: err = %v", err)
	}
}

// slot.yaml's fields take effect on a real slot: entrypoint names the
// function run; capability is the gate checked before the code starts;
// capabilities bound what ctx.capability.require grants (declared and
// held), and what the sandbox lets the worker write; description is the
// operator's only. The session holds fs.read only, then fs.write too.
func TestSlotYAMLFieldsTakeEffect(t *testing.T) {
	withAuthored(t)
	writer := writerSlot(`"slot-wrote"`)
	for _, tt := range []struct {
		caps string
		want map[string]string // slot -> its result ("" ok context) or error
	}{
		{"fs.read", map[string]string{
			"other_fn":  "ok: from other",
			"gated":     "error: its capability fs.write is not granted to this session",
			"read_gate": "ok: passed the gate",
			"undecl":    "error: capability fs.write is not granted: slot undecl did not declare fs.write in its capabilities",
			"writer":    "error: capability fs.write is not granted: fs.write is not granted to this session",
		}},
		{"fs.read, fs.write", map[string]string{
			"gated":  "ok: passed the gate",
			"undecl": "error: capability fs.write is not granted: slot undecl did not declare fs.write in its capabilities",
			"writer": "ok: wrote",
		}},
	} {
		t.Run(tt.caps, func(t *testing.T) {
			dir := slotCore(t, map[string][2]string{
				"other_fn":  {"entrypoint: module:other\ndescription: for the operator\n", "def run(ctx, args):\n    return {'context': 'from run'}\ndef other(ctx, args):\n    return {'context': 'from other'}\n"},
				"gated":     {"capability: fs.write\n", "def run(ctx, args):\n    return {'context': 'passed the gate'}\n"},
				"read_gate": {"capability: fs.read\n", "def run(ctx, args):\n    return {'context': 'passed the gate'}\n"},
				"undecl":    {"description: requires what it did not declare\n", writer},
				"writer":    {"capabilities: [fs.write]\n", writer},
			})
			if err := os.WriteFile(filepath.Join(dir, "agent.yaml"), []byte("capabilities: ["+tt.caps+"]\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			ws := t.TempDir()
			slotResults(t, Options{CoreDir: dir, Workspace: ws, StateDir: t.TempDir()}, tt.want)
			_, err := os.Stat(filepath.Join(ws, "slot-wrote"))
			if wrote := err == nil; wrote != (tt.want["writer"] == "ok: wrote") {
				t.Errorf("the workspace written = %v", wrote)
			}
		})
	}
}

// A slot.yaml naming a capability the host does not know fails opening
// (and so the commit gate) at its file, line and field.
func TestSlotCapabilityNamesAreChecked(t *testing.T) {
	withAuthored(t)
	for yaml, want := range map[string]string{
		"capability: fs.wirte\n":                   "slot.yaml:1:13: capability: ",
		"capabilities: [fs.read, network.fetsh]\n": "slot.yaml:1:25: capabilities[1]: ",
	} {
		dir := slotCore(t, map[string][2]string{"typo": {yaml, "def run(ctx, args):\n    return None\n"}})
		_, err := Open(Options{CoreDir: dir, Workspace: t.TempDir(), StateDir: t.TempDir(), BuiltinPluginDir: builtinDir})
		if err == nil || !strings.Contains(err.Error(), filepath.Join(dir, "slots/typo")+"/"+want) {
			t.Errorf("%q: %v\nwant %s", yaml, err, want)
		}
	}
}
