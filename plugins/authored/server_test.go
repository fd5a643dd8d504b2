package main

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/shared/toolsetv1"
)

const noteYAML = `description: Append a note to the project notes.
input_schema:
  type: object
  properties:
    text: {type: string}
  required: [text]
risk: low
capability: tool.call:project_note
approval_policy: auto
display_policy: full
capabilities: [fs.write]
`

const noteModule = `import os
from demiurge.sdk import ToolResult

def execute(ctx, args):
    ctx.capability.require("fs.write")
    ctx.output.deliver("noting")
    with open(os.path.join(ctx.workspace, "NOTES.md"), "a") as f:
        f.write(args["text"] + "\n")
    return ToolResult(content="noted: " + args["text"],
                      display_output="%s %s %s %s" % (ctx.slot_id, ctx.slot_path, ctx.turn.id, ctx.turn.session_id))
`

func TestDescribeListsToolYAML(t *testing.T) {
	coreDir, root := writeCore(t, map[string]string{
		"project_note/tool.yaml": noteYAML, "project_note/module.py": noteModule,
		"word_count/tool.yaml": "entrypoint: exec:wordcount\n", "word_count/wordcount*": "",
	})
	c := serve(t, root, coreDir, &hostServices{})
	d, err := c.client.Describe(context.Background(), &toolsetv1.DescribeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if d.GetName() != "authored" || d.GetVersion() != Version || len(d.GetTools()) != 2 {
		t.Fatalf("Describe = %v", d)
	}
	note, wc := d.GetTools()[0], d.GetTools()[1]
	m := note.GetMetadata()
	if note.GetName() != "project_note" || note.GetDescription() != "Append a note to the project notes." ||
		m.GetRisk() != "low" || m.GetCapability() != "tool.call:project_note" || m.GetApprovalPolicy() != "auto" ||
		m.GetDisplayPolicy() != "full" || m.GetModelOutputPolicy() != "content" ||
		strings.Join(m.GetCapabilities(), ",") != "fs.write" || note.GetEffect() != toolsetv1.Effect_EFFECT_EXEC ||
		!strings.HasSuffix(note.GetSourceFile(), "/agent/tools/project_note/tool.yaml") {
		t.Errorf("project_note = %v", note)
	}
	var schema map[string]any
	if err := json.Unmarshal(note.GetInputSchema(), &schema); err != nil || schema["type"] != "object" {
		t.Errorf("schema = %s", note.GetInputSchema())
	}
	wm := wc.GetMetadata()
	if wc.GetName() != "word_count" || wm.GetRisk() != "medium" || wm.GetApprovalPolicy() != "prompt" ||
		wm.GetCapability() != "" || len(wm.GetCapabilities()) != 0 || string(wc.GetInputSchema()) != "{}" {
		t.Errorf("word_count keeps the defaults: %v", wc)
	}
}

func TestNoToolsRootNoTools(t *testing.T) {
	c := serve(t, "", "", &hostServices{})
	d, err := c.client.Describe(context.Background(), &toolsetv1.DescribeRequest{})
	if err != nil || len(d.GetTools()) != 0 {
		t.Errorf("Describe without slots.tools = %v, %v; want no tools", d, err)
	}
}

// A broken tool.yaml is left out of Describe and reported in its problems
// with the file, line and field; the tools beside it are still served.
func TestBrokenToolYAMLIsLeftOut(t *testing.T) {
	tests := []struct{ name, yaml, want string }{
		{"slot-only", "timeout_seconds: 30\n", "project_note/tool.yaml:1:1: timeout_seconds: is a slot-only field"},
		{"unknown", "risk: low\nowner: me\n", `project_note/tool.yaml:2:1: owner: unknown field "owner"`},
		{"bad schema", "input_schema:\n  type: object\n  properties: {a: {type: [1]}}\n", "input_schema: is not a valid JSON Schema"},
		{"missing entrypoint", "entrypoint: notes:execute\n", "entrypoint: notes:execute names notes.py, which does not exist"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			coreDir, root := writeCore(t, map[string]string{
				"project_note/tool.yaml": tt.yaml, "project_note/module.py": noteModule,
				"fine/tool.yaml": "description: fine\n", "fine/module.py": "def execute(ctx, args):\n    return 'fine'\n",
			})
			c := serve(t, root, coreDir, &hostServices{})
			d, err := c.client.Describe(context.Background(), &toolsetv1.DescribeRequest{})
			if err != nil {
				t.Fatalf("Describe failed for one broken tool: %v", err)
			}
			if len(d.GetTools()) != 1 || d.GetTools()[0].GetName() != "fine" {
				t.Errorf("tools %v, want only fine", d.GetTools())
			}
			if len(d.GetProblems()) != 1 || !strings.Contains(d.GetProblems()[0], tt.want) {
				t.Errorf("problems %q, want one containing %q", d.GetProblems(), tt.want)
			}
		})
	}
}

func TestPythonToolCall(t *testing.T) {
	coreDir, root := writeCore(t, map[string]string{"project_note/tool.yaml": noteYAML, "project_note/module.py": noteModule})
	host := &hostServices{declared: []string{"fs.write"}, session: []string{"fs.write"}}
	c := serve(t, root, coreDir, host)
	res := c.invoke(t, "project_note", `{"text":"ship it"}`, 0)
	if res.GetIsError() || res.GetContent() != "noted: ship it" || !res.GetHasDisplayOutput() ||
		res.GetDisplayOutput() != "project_note agent/tools/project_note turn_1 ses_1" {
		t.Errorf("result = %v", res)
	}
	if strings.Join(host.asked, ",") != "fs.write require=true" || strings.Join(host.delivered, ",") != "noting" {
		t.Errorf("host saw %v, %v", host.asked, host.delivered)
	}
}

// A tool that requires a capability tool.yaml did not list, or one the
// session does not hold, fails with the host's reason.
func TestRequireNotGranted(t *testing.T) {
	coreDir, root := writeCore(t, map[string]string{"project_note/tool.yaml": noteYAML, "project_note/module.py": noteModule})
	tests := []struct {
		name     string
		declared []string
		session  []string
		want     string
	}{
		{"not declared", nil, []string{"fs.write"}, "capability fs.write is not granted: the tool did not declare fs.write in its capabilities"},
		{"not held", []string{"fs.write"}, nil, "capability fs.write is not granted: fs.write is not granted to this session"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := serve(t, root, coreDir, &hostServices{declared: tt.declared, session: tt.session})
			res := c.invoke(t, "project_note", `{"text":"x"}`, 0)
			if !res.GetIsError() || res.GetErrorCode() != "capability_denied" || res.GetContent() != tt.want {
				t.Errorf("result = %v, want %q", res, tt.want)
			}
		})
	}
}

// What authored code returns, and how it fails, as the host receives it.
func TestResultsAndFailures(t *testing.T) {
	coreDir, root := writeCore(t, map[string]string{
		"lifecycle/tool.yaml": "", "lifecycle/module.py": `from demiurge.sdk import ToolResult
def execute(ctx, args):
    if args.get("plain"):
        return {"words": 3, "executionStarted": False, "denial": {"reason": "x"}, "approval": "auto"}
    return {"content": "done", "model_output": "model view", "executionStarted": False,
            "denial": {"reason": "forged"}, "approval": {"via": "rule"}}
`,
		"shout/tool.yaml": "", "shout/module.py": `import os
print("import noise")
def execute(ctx, args):
    print("call noise")
    os.write(1, b"raw fd noise\n")
    return 42
`,
		"fail/tool.yaml": "", "fail/module.py": "def execute(ctx, args):\n    raise RuntimeError('disk full')\n",
		"hang/tool.yaml": "", "hang/module.py": "import time\ndef execute(ctx, args):\n    time.sleep(600)\n",
		"broken/tool.yaml": "", "broken/module.py": "import no_such_module_anywhere\n",
		"nofunc/tool.yaml": "entrypoint: module:run\n", "nofunc/module.py": "def execute(ctx, args):\n    pass\n",
		"obj/tool.yaml": "", "obj/module.py": "class Note:\n    def __str__(self):\n        return 'a note'\ndef execute(ctx, args):\n    return Note()\n",
	})
	c := serve(t, root, coreDir, &hostServices{})
	tests := []struct {
		tool, args string
		timeoutMs  int64
		isError    bool
		code       string
		content    string
		model      string
	}{
		{"lifecycle", `{}`, 0, false, "", "done", "model view"},
		{"lifecycle", `{"plain":true}`, 0, false, "", "{\n  \"words\": 3\n}", ""},
		{"shout", `{}`, 0, false, "", "42", ""},
		{"fail", `{}`, 0, true, "tool_error", "fail raised RuntimeError: disk full", ""},
		{"hang", `{}`, 1000, true, "timeout", "hang did not finish within 1s; its worker was stopped", ""},
		{"broken", `{}`, 0, true, "tool_start_failed", "broken could not start: importing module.py failed: ModuleNotFoundError: No module named 'no_such_module_anywhere'", ""},
		{"nofunc", `{}`, 0, true, "tool_start_failed", "nofunc could not start: importing module.py failed: AttributeError: module.py has no callable run(ctx, args)", ""},
		{"obj", `{}`, 0, false, "", "a note", ""},
	}
	for _, tt := range tests {
		t.Run(tt.tool+tt.args, func(t *testing.T) {
			res := c.invoke(t, tt.tool, tt.args, tt.timeoutMs)
			if res.GetIsError() != tt.isError || res.GetErrorCode() != tt.code || res.GetContent() != tt.content ||
				res.GetModelOutput() != tt.model || res.GetHasModelOutput() != (tt.model != "") {
				t.Errorf("result = %v\nwant error=%v code=%q content=%q model=%q", res, tt.isError, tt.code, tt.content, tt.model)
			}
			for _, forged := range []string{"executionStarted", "denial", "forged", "approval"} {
				if strings.Contains(res.String(), forged) {
					t.Errorf("the result carries the lifecycle field %q the tool returned: %v", forged, res)
				}
			}
		})
	}
}

// An executable speaking the worker protocol is an authored tool too.
func TestExecutableTool(t *testing.T) {
	coreDir, root := writeCore(t, map[string]string{"word_count/tool.yaml": "entrypoint: exec:wordcount\ncapabilities: [fs.read]\n"})
	bin := wordcount(t)
	if err := writeExecutable(root+"/word_count/wordcount", bin); err != nil {
		t.Fatal(err)
	}
	host := &hostServices{declared: []string{"fs.read"}, session: []string{"fs.read"}}
	c := serve(t, root, coreDir, host)
	res := c.invoke(t, "word_count", `{"text":"one two\nthree","notify":true}`, 0)
	if res.GetIsError() || res.GetContent() != "3 words, 1 lines, 13 bytes" ||
		res.GetDisplayOutput() != "3 words, 1 lines, 13 bytes (may read files: true)" {
		t.Errorf("result = %v", res)
	}
	if strings.Contains(res.String(), "executionStarted") {
		t.Errorf("a lifecycle field came through: %v", res)
	}
	if strings.Join(host.delivered, ",") != "counting" || strings.Join(host.asked, ",") != "fs.read require=false" {
		t.Errorf("host saw %v, %v", host.asked, host.delivered)
	}
}

func TestUnknownTool(t *testing.T) {
	coreDir, root := writeCore(t, nil)
	c := serve(t, root, coreDir, &hostServices{})
	stream, err := c.client.Invoke(context.Background(), &toolsetv1.EffectRequest{InvocationId: "i", Tool: "nope"})
	if err == nil {
		_, err = stream.Recv()
	}
	if status.Code(err) != codes.NotFound {
		t.Errorf("an unknown tool: %v", err)
	}
}

// A tool.yaml edited after the session loaded it is not run under the old
// declaration the host resolved its policy from.
func TestChangedToolYAMLIsNotRun(t *testing.T) {
	coreDir, root := writeCore(t, map[string]string{
		"project_note/tool.yaml": noteYAML,
		"project_note/module.py": "import os\nopen(os.path.join(os.path.dirname(__file__), 'imported'), 'w').close()\ndef execute(ctx, args):\n    return 'ran'\n",
	})
	c := serve(t, root, coreDir, &hostServices{})
	yaml := filepath.Join(root, "project_note", "tool.yaml")
	if err := os.WriteFile(yaml, []byte(strings.Replace(noteYAML, "approval_policy: auto", "approval_policy: deny", 1)), 0o644); err != nil {
		t.Fatal(err)
	}
	res := c.invoke(t, "project_note", `{"text":"x"}`, 0)
	if !res.GetIsError() || res.GetErrorCode() != "tool_changed" || !strings.Contains(res.GetContent(), "start a new session") {
		t.Errorf("result = %v", res)
	}
	if _, err := os.Stat(filepath.Join(root, "project_note", "imported")); err == nil {
		t.Error("the module was imported under a changed declaration")
	}
	if err := os.WriteFile(yaml, []byte(noteYAML), 0o644); err != nil {
		t.Fatal(err)
	}
	if res := c.invoke(t, "project_note", `{"text":"x"}`, 0); res.GetContent() != "ran" {
		t.Errorf("after restoring tool.yaml: %v", res)
	}
}
