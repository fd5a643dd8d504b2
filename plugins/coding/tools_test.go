package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"slices"
	"testing"
	"time"

	"demiurge.dev/sdk"
	"demiurge.dev/sdk/sdktest"
	"demiurge.dev/shared/toolsetv1"
)

func TestToolsList(t *testing.T) {
	var names []string
	for _, tool := range Tools() {
		s := tool.Spec()
		names = append(names, s.Name)
		var schema struct {
			Type       string         `json:"type"`
			Properties map[string]any `json:"properties"`
			Required   []string       `json:"required"`
		}
		if err := json.Unmarshal(s.Schema, &schema); err != nil || schema.Type != "object" {
			t.Errorf("%s: schema %s is not an object schema (%v)", s.Name, s.Schema, err)
		}
		required := map[string]string{"search_files": "", "web_extract": "url", "terminal": "command", "skills_list": "", "skill_view": "name", "skill_manage": "action", "todo": "", "clarify": "question", "session_search": ""}
		arg, ok := required[s.Name]
		if !ok {
			arg = "path"
		}
		if arg != "" && !slices.Contains(schema.Required, arg) {
			t.Errorf("%s: %s is not required: %v", s.Name, arg, schema.Required)
		}
		// Every coding tool names its gate, but todo and clarify, which
		// reach only the calling session's own list and its operator.
		ungated := s.Name == "todo" || s.Name == "clarify"
		if s.Description == "" || (s.Metadata.Capability == "") != ungated {
			t.Errorf("%s: description missing or capability %q unexpected", s.Name, s.Metadata.Capability)
		}
		_, checked := tool.(sdk.Prechecker)
		if checked != (s.Name == "patch" || s.Name == "write_file" || s.Name == "skill_manage") {
			t.Errorf("%s: implements Prechecker = %v; patch, write_file and skill_manage (only) have a precheck", s.Name, checked)
		}
	}
	if want := []string{"read_file", "write_file", "patch", "search_files", "web_extract", "terminal", "skills_list", "skill_view", "skill_manage", "todo", "clarify", "session_search"}; !slices.Equal(names, want) {
		t.Errorf("Tools() = %v, want exactly %v", names, want)
	}
}

// TestServeDescribes starts this test binary as the real plugin process
// and asks it to describe itself over go-plugin's gRPC: Serve validates
// every spec and exits instead of serving when one is wrong.
func TestServeDescribes(t *testing.T) {
	cmd := exec.Command(os.Args[0])
	cmd.Env = []string{serveChildEnv + "=1"}
	_, ts := sdktest.Start(t, cmd)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	d, err := ts.Describe(ctx, &toolsetv1.DescribeRequest{})
	if err != nil {
		t.Fatal(err)
	}
	if d.GetName() != "coding" || d.GetVersion() != Version {
		t.Errorf("Describe = %s %s, want coding %s", d.GetName(), d.GetVersion(), Version)
	}
	got := map[string]bool{}
	for _, s := range d.GetTools() {
		got[s.GetName()] = s.GetHasPrecheck()
	}
	want := map[string]bool{"read_file": false, "write_file": true, "patch": true, "search_files": false, "web_extract": false, "terminal": false,
		"skills_list": false, "skill_view": false, "skill_manage": true,
		"todo": false, "clarify": false, "session_search": false}
	if len(got) != len(want) {
		t.Errorf("described tools %v, want %v", got, want)
	}
	for name, precheck := range want {
		if p, ok := got[name]; !ok || p != precheck {
			t.Errorf("tool %s: described=%v has_precheck=%v, want has_precheck=%v", name, ok, p, precheck)
		}
	}
}
