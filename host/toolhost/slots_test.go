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
		if err := os.WriteFile(filepath.Join(sd, core.SlotFile), []byte(f[0]), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sd, "module.py"), []byte(f[1]), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
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
	h, err := Open(Options{CoreDir: dir, Workspace: dir, StateDir: t.TempDir(), BuiltinPluginDir: builtinDir})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	turn, err := h.NewTurn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	inv := h.SlotInvoker(turn)
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
