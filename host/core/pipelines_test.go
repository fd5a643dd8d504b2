package core

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// writeTree writes files (path: content) under a new core directory.
func writeTree(t *testing.T, files map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for p, s := range files {
		full := filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(full, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func slotFiles(ids ...string) map[string]string {
	m := map[string]string{"agent.yaml": "toolsets: [coding]\n"}
	for _, id := range ids {
		m["slots/"+id+"/slot.yaml"] = "description: " + id + "\n"
		m["slots/"+id+"/module.py"] = "def run(ctx, event):\n    return None\n"
	}
	return m
}

func TestPipelinesGood(t *testing.T) {
	files := slotFiles("ticket", "lint_prompt", "notify", "repo_map")
	files["pipelines.yaml"] = "bootstrap: [project_instructions, repo_map]\ninput: [base_input, [ticket, lint_prompt]]\noutput: [notify]\n"
	files["slots/notify/slot.yaml"] = "entrypoint: module:after\nfailure_policy: skip\nhistory_policy: keep\ndefault_placement: system\ntimeout_seconds: 3\ncapabilities: [fs.read]\n"
	files["slots/notify/module.py"] = "def after(ctx, event):\n    return None\n"
	c, err := Load(writeTree(t, files))
	if err != nil {
		t.Fatal(err)
	}
	want := Pipelines{
		Bootstrap: []Group{{ProjectInstructions}, {"repo_map"}},
		Input:     []Group{{BaseInput}, {"ticket", "lint_prompt"}},
		Output:    []Group{{BaseOutput}, {"notify"}}, // base_output placed first
		File:      filepath.Join(c.Dir, PipelinesFile),
	}
	if !reflect.DeepEqual(c.Pipelines, want) {
		t.Fatalf("pipelines\n got %+v\nwant %+v", c.Pipelines, want)
	}
	n := c.Slots["notify"]
	if n.Entrypoint != "module:after" || n.FailurePolicy != FailSkip || n.HistoryPolicy != HistoryKeep ||
		n.DefaultPlacement != PlaceSystem || n.TimeoutSeconds != 3 || !reflect.DeepEqual(n.Capabilities, []string{"fs.read"}) {
		t.Fatalf("notify = %+v", n)
	}
	tk := c.Slots["ticket"]
	if tk.Entrypoint != "module:run" || tk.FailurePolicy != FailFail || tk.HistoryPolicy != HistoryTurn ||
		tk.DefaultPlacement != PlaceMessage || tk.TimeoutSeconds != DefaultSlotTimeout {
		t.Fatalf("defaults: ticket = %+v", tk)
	}
}

func TestPipelinesAndSlotsBad(t *testing.T) {
	for name, tc := range map[string]struct {
		files map[string]string
		want  string
	}{
		"unknown slot": {map[string]string{"pipelines.yaml": "input: [base_input, tiket]\n"},
			`pipelines.yaml:1:21: input[1]: unknown slot "tiket" (did you mean "ticket"?); slots of this core for input: ticket, base_input`},
		"unknown stage": {map[string]string{"pipelines.yaml": "inputs: [ticket]\n"},
			`pipelines.yaml:1:1: inputs: unknown stage "inputs" (did you mean "input"?)`},
		"malformed yaml": {map[string]string{"pipelines.yaml": "input: [ticket\n"},
			`pipelines.yaml:1: invalid YAML`},
		"deep nesting": {map[string]string{"pipelines.yaml": "input: [[ticket, [ticket]]]\n"},
			`pipelines.yaml:1:18: input[0][1]: parallel groups nest one level deep`},
		"group of one": {map[string]string{"pipelines.yaml": "input: [[ticket]]\n"},
			`input[0]: a parallel group names at least two slots`},
		"base in group": {map[string]string{"pipelines.yaml": "input: [[base_input, ticket]]\n"},
			`input[0][0]: base_input is the host's own step and runs alone`},
		"base in wrong stage": {map[string]string{"pipelines.yaml": "output: [base_input]\n"},
			`output[0]: base_input belongs to the input stage only`},
		"twice": {map[string]string{"pipelines.yaml": "input: [ticket, ticket]\n"},
			`input[1]: slot "ticket" is already in this stage (line 1)`},
		"slot tool field": {map[string]string{"slots/ticket/slot.yaml": "risk: low\n"},
			`slots/ticket/slot.yaml:1:1: risk: is a tool.yaml field; a slot is not called by the model`},
		"slot unknown key": {map[string]string{"slots/ticket/slot.yaml": "failure_polcy: skip\n"},
			`slot.yaml:1:1: failure_polcy: unknown key "failure_polcy" (did you mean "failure_policy"?)`},
		"bad failure policy": {map[string]string{"slots/ticket/slot.yaml": "failure_policy: ignore\n"},
			`slot.yaml:1:17: failure_policy: unknown value "ignore"`},
		"bad history policy": {map[string]string{"slots/ticket/slot.yaml": "history_policy: forever\n"},
			`history_policy: unknown value "forever"`},
		"bad placement": {map[string]string{"slots/ticket/slot.yaml": "default_placement: top\n"},
			`default_placement: unknown value "top"`},
		"timeout range": {map[string]string{"slots/ticket/slot.yaml": "timeout_seconds: 0\n"},
			`slot.yaml:1:18: timeout_seconds: 0 is out of range; give 1 to 300 seconds`},
		"timeout above range": {map[string]string{"slots/ticket/slot.yaml": "timeout_seconds: 301\n"},
			`slot.yaml:1:18: timeout_seconds: 301 is out of range; give 1 to 300 seconds`},
		"capabilities not a list": {map[string]string{"slots/ticket/slot.yaml": "capabilities: fs.read\n"},
			`slot.yaml:1:15: capabilities`},
		"project_instructions outside bootstrap": {map[string]string{"pipelines.yaml": "input: [project_instructions]\n"},
			`pipelines.yaml:1:9: input[0]: project_instructions`},
		"stage not a list": {map[string]string{"pipelines.yaml": "input: ticket\n"},
			`pipelines.yaml:1:8: input`},
		"timeout type": {map[string]string{"slots/ticket/slot.yaml": "timeout_seconds: \"5\"\n"},
			`timeout_seconds: want a whole number of seconds, got the string "5"`},
		"no module": {map[string]string{"slots/ticket/slot.yaml": "entrypoint: other:run\n"},
			`slot.yaml: entrypoint: other.py does not exist beside slot.yaml`},
		"bad entrypoint": {map[string]string{"slots/ticket/slot.yaml": "entrypoint: run\n"},
			`entrypoint: want module:function`},
		"reserved id": {map[string]string{"slots/base_input/slot.yaml": "description: x\n"},
			`slot id "base_input"`},
	} {
		t.Run(name, func(t *testing.T) {
			files := slotFiles("ticket")
			for p, s := range tc.files {
				files[p] = s
			}
			_, err := Load(writeTree(t, files))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got  %v\nwant %s", err, tc.want)
			}
			if _, ok := err.(*LoadError); !ok {
				t.Fatalf("%T, want *LoadError", err)
			}
		})
	}
}

func TestDefaultCoreRunsProjectInstructions(t *testing.T) {
	if got := Default().Pipelines.Bootstrap; !reflect.DeepEqual(got, []Group{{ProjectInstructions}}) {
		t.Fatalf("embedded bootstrap = %v", got)
	}
	c, err := Load(writeTree(t, map[string]string{"agent.yaml": "toolsets: [coding]\n", "pipelines.yaml": "bootstrap: []\n"}))
	if err != nil || len(c.Pipelines.Bootstrap) != 0 {
		t.Fatalf("bootstrap: [] turns it off: %v %v", c.Pipelines.Bootstrap, err)
	}
}
