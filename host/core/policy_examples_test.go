package core

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestPolicyExamplesLoad(t *testing.T) {
	c, err := Load(writeTree(t, map[string]string{
		"agent.yaml": "toolsets: [coding]\n",
		"policy_examples.yaml": "examples:\n" +
			"  - name: reads run\n    tool: read_file\n    args: {path: a.txt, limit: 3, nested: {x: [1, true]}}\n    verdict: allow\n" +
			"  - {name: no args, tool: todo, verdict: deny}\n",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if len(c.PolicyExamples) != 2 {
		t.Fatalf("examples %+v", c.PolicyExamples)
	}
	first, second := c.PolicyExamples[0], c.PolicyExamples[1]
	var args map[string]any
	if err := json.Unmarshal(first.Args, &args); err != nil || args["path"] != "a.txt" || args["limit"] != 3.0 {
		t.Fatalf("args %s: %v", first.Args, err)
	}
	if first.Name != "reads run" || first.Tool != "read_file" || first.Verdict != VerdictAllow || first.Line != 2 || first.Field != "examples[0]" {
		t.Fatalf("first %+v", first)
	}
	if string(second.Args) != "{}" || second.Verdict != VerdictDeny || second.Line != 6 {
		t.Fatalf("second %+v", second)
	}
	if c2 := c.clone(); &c2.PolicyExamples[0] == &c.PolicyExamples[0] {
		t.Fatal("clone shares the examples")
	}
	none, err := Load(writeTree(t, map[string]string{"agent.yaml": "toolsets: [coding]\n"}))
	if err != nil || none.PolicyExamples != nil {
		t.Fatalf("no file: %v %+v", err, none.PolicyExamples)
	}
}

// Every mistake in policy_examples.yaml names the file, line and field.
func TestPolicyExamplesBad(t *testing.T) {
	for name, tc := range map[string]struct{ file, want string }{
		"bad verdict":    {"examples:\n  - {name: a, tool: read_file, verdict: ask}\n", `policy_examples.yaml:2:41: examples[0].verdict: unknown value "ask"; valid values: allow, prompt, deny`},
		"no verdict":     {"examples:\n  - {name: a, tool: read_file}\n", `policy_examples.yaml:2:5: examples[0]: has no verdict`},
		"no name":        {"examples:\n  - {tool: read_file, verdict: allow}\n", `policy_examples.yaml:2:5: examples[0]: has no name`},
		"unknown key":    {"examples:\n  - {name: a, tool: read_file, verdct: allow}\n", `policy_examples.yaml:2:32: examples[0].verdct: unknown key "verdct" (did you mean "verdict"?)`},
		"top key":        {"example:\n  - {name: a, tool: read_file, verdict: allow}\n", `policy_examples.yaml:1:1: example: unknown key "example" (did you mean "examples"?)`},
		"bad tool name":  {"examples:\n  - {name: a, tool: read file, verdict: allow}\n", `policy_examples.yaml:2:21: examples[0].tool:`},
		"args a list":    {"examples:\n  - {name: a, tool: read_file, args: [a], verdict: allow}\n", `policy_examples.yaml:2:38: examples[0].args: want a mapping of the call's arguments, got a list`},
		"alias in args":  {"x: &p {path: a}\nexamples:\n  - {name: a, tool: read_file, args: {p: *p}, verdict: allow}\n", `policy_examples.yaml:1:1: x: unknown key "x"`},
		"alias below":    {"examples:\n  - {name: a, tool: read_file, args: {p: &v x, q: *v}, verdict: allow}\n", `examples[0].args: YAML aliases (*v) are not allowed`},
		"duplicate name": {"examples:\n  - {name: a, tool: read_file, verdict: allow}\n  - {name: a, tool: todo, verdict: allow}\n", `policy_examples.yaml:3:5: examples[1].name: duplicate example name "a" (first at line 2)`},
		"empty list":     {"examples: []\n", `policy_examples.yaml:1:11: examples: is empty`},
		"empty file":     {"# nothing\n", `policy_examples.yaml: policy_examples.yaml is empty`},
		"two documents":  {"examples: []\n---\nexamples: []\n", `holds a second YAML document`},
		"malformed":      {"examples: [\n", `policy_examples.yaml:1: invalid YAML`},
		"too many":       {"examples:\n" + strings.Repeat("  - {name: a, tool: read_file, verdict: allow}\n", MaxPolicyExamples+1), `over the limit of 256`},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := Load(writeTree(t, map[string]string{"agent.yaml": "toolsets: [coding]\n", "policy_examples.yaml": tc.file}))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("got %v\nwant %s", err, tc.want)
			}
			if _, ok := err.(*LoadError); !ok {
				t.Fatalf("%T is not a *LoadError", err)
			}
		})
	}
}
