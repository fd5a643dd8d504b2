package main

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/shared/sandbox"
	"demiurge.dev/shared/toolsetv1"
)

// writeSlots writes slots/<id>/... files under coreDir and returns the
// slots root.
func writeSlots(t *testing.T, coreDir string, files map[string]string) string {
	t.Helper()
	root := filepath.Join(coreDir, "slots")
	for p, content := range files {
		full := filepath.Join(root, filepath.FromSlash(p))
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return root
}

// Pipeline slots run through the same runner as authored tools, under the
// host's sandbox policy, as "slot:<id>"; Describe never lists them, so the
// model cannot call one, and a tool's name cannot reach a slot.
func TestSlotsRunButAreNeverDescribed(t *testing.T) {
	coreDir, toolsRoot := writeCore(t, map[string]string{"echo/tool.yaml": "", "echo/module.py": "def execute(ctx, args):\n    return 'tool'\n"})
	slotsRoot := writeSlots(t, coreDir, map[string]string{
		"tag/slot.yaml": "description: tags the message\nfailure_policy: skip\ntimeout_seconds: 5\n",
		"tag/module.py": `import os
def run(ctx, args):
    try:
        open(os.path.join(ctx.workspace, "slot-wrote"), "w").close()
        wrote = "wrote"
    except OSError:
        wrote = "refused"
    return {"context": "seen: " + args["message"] + " " + ctx.slot_id + " " + ctx.slot_path + " " + wrote}
`,
		"boom/slot.yaml": "", "boom/module.py": "def run(ctx, args):\n    raise ValueError('bad slot')\n",
		"hang/slot.yaml": "", "hang/module.py": "import time\ndef run(ctx, args):\n    time.sleep(600)\n",
		"bad/slot.yaml": "input_schema: {}\n", "bad/module.py": "def run(ctx, args):\n    return 1\n",
	})
	c := serve(t, toolsRoot, coreDir, &hostServices{})
	if _, err := c.client.Configure(context.Background(), &toolsetv1.ConfigureRequest{ToolsRoot: toolsRoot, CoreDir: coreDir, SlotsRoot: slotsRoot}); err != nil {
		t.Fatal(err)
	}
	d, err := c.client.Describe(context.Background(), &toolsetv1.DescribeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.GetTools()) != 1 || d.GetTools()[0].GetName() != "echo" {
		t.Errorf("Describe lists %v; want only the tool echo, never a slot", d.GetTools())
	}
	if p := strings.Join(d.GetProblems(), "\n"); !strings.Contains(p, "bad/slot.yaml") || !strings.Contains(p, "input_schema") {
		t.Errorf("problems = %q; want bad/slot.yaml's input_schema refused", p)
	}
	p := sandbox.Policy{Mode: sandbox.ReadOnly, Workspace: c.workspace, TmpDir: t.TempDir(), Helper: sandboxHelper(t), ReadOnly: []string{coreDir}}
	if c.sandbox, err = p.Encode(); err != nil {
		t.Fatal(err)
	}
	res := c.invoke(t, "slot:tag", `{"message":"hi"}`, 0)
	if res.GetIsError() || res.GetContent() != "{\n  \"context\": \"seen: hi tag slots/tag refused\"\n}" {
		t.Errorf("slot:tag = %v", res)
	}
	for _, tt := range []struct{ name, code, content string }{
		{"slot:boom", "tool_error", "boom raised ValueError: bad slot"},
		{"slot:hang", "timeout", "hang did not finish within 1s; its worker was stopped"},
		{"tag", "", "no authored tool"},       // a slot is not reachable by its bare id
		{"slot:echo", "", "no authored tool"}, // nor a tool through the slot prefix
		{"slot:bad", "", "no authored tool"},
	} {
		if tt.code == "" {
			stream, err := c.client.Invoke(context.Background(), &toolsetv1.EffectRequest{InvocationId: "x" + tt.name, Tool: tt.name, SandboxPolicy: c.sandbox})
			if err == nil {
				_, err = stream.Recv()
			}
			if err == nil || !strings.Contains(err.Error(), tt.content) {
				t.Errorf("%s: err = %v, want %q", tt.name, err, tt.content)
			}
			continue
		}
		res := c.invoke(t, tt.name, `{}`, 1000)
		if !res.GetIsError() || res.GetErrorCode() != tt.code || res.GetContent() != tt.content {
			t.Errorf("%s = %v, want %s %q", tt.name, res, tt.code, tt.content)
		}
	}
}
