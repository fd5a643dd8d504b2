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
			Type     string   `json:"type"`
			Required []string `json:"required"`
		}
		if err := json.Unmarshal(s.Schema, &schema); err != nil || schema.Type != "object" {
			t.Errorf("%s: schema %s is not an object schema (%v)", s.Name, s.Schema, err)
		}
		required := map[string]string{"tools_list": "", "task_status": "task_id", "task_control": "task_id", "yield_until": "task_id", "task_list": "", "search_capabilities": "query"}
		if arg := required[s.Name]; arg != "" && !slices.Contains(schema.Required, arg) {
			t.Errorf("%s: %s is not required: %v", s.Name, arg, schema.Required)
		}
		// Listing the turn's tools and reading one's own tasks need no
		// capability beyond the host's scope; cancelling names the gate of
		// what it stops.
		scopeOnly := map[string]bool{"tools_list": true, "task_status": true, "yield_until": true, "task_list": true, "search_capabilities": true}
		if s.Description == "" || (s.Metadata.Capability == "") != scopeOnly[s.Name] {
			t.Errorf("%s: description missing or capability %q unexpected", s.Name, s.Metadata.Capability)
		}
		if _, checked := tool.(sdk.Prechecker); checked {
			t.Errorf("%s implements Prechecker; no control tool has a precheck", s.Name)
		}
	}
	if want := []string{"tools_list", "task_status", "task_control", "yield_until", "task_list", "search_capabilities", "delegate_task", "rollback_core", "evolve_core"}; !slices.Equal(names, want) {
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
	if d.GetName() != "demiurge_control" || d.GetVersion() != Version {
		t.Errorf("Describe = %s %s, want demiurge_control %s", d.GetName(), d.GetVersion(), Version)
	}
	var got []string
	for _, s := range d.GetTools() {
		got = append(got, s.GetName())
		if s.GetHasPrecheck() {
			t.Errorf("tool %s is described with a precheck", s.GetName())
		}
	}
	if want := []string{"tools_list", "task_status", "task_control", "yield_until", "task_list", "search_capabilities", "delegate_task", "rollback_core", "evolve_core"}; !slices.Equal(got, want) {
		t.Errorf("described tools %v, want %v", got, want)
	}
}
