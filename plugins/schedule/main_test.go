package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"testing"
	"time"

	"go.uber.org/goleak"

	"demiurge.dev/sdk/sdktest"
	"demiurge.dev/shared/toolsetv1"
)

// serveChildEnv makes the test binary serve the toolset, as the plugin
// binary does, so a test can start it as a real plugin process.
const serveChildEnv = "SCHEDULE_TEST_SERVE_TOOLSET"

func TestMain(m *testing.M) {
	if os.Getenv(serveChildEnv) != "" {
		main()
		os.Exit(0)
	}
	goleak.VerifyTestMain(m)
}

// TestServeDescribes starts this test binary as the real plugin process
// and asks it to describe itself: Serve validates every spec and exits
// instead of serving when one is wrong.
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
	if d.GetName() != "schedule" || d.GetVersion() != Version || len(d.GetTools()) != 1 {
		t.Fatalf("Describe = %s %s with %d tools", d.GetName(), d.GetVersion(), len(d.GetTools()))
	}
	tool := d.GetTools()[0]
	if tool.GetName() != "schedule_manage" {
		t.Fatalf("tool %s", tool.GetName())
	}
	if m := tool.GetMetadata(); m.GetCapability() != "schedule.manage" || m.GetApprovalPolicy() != "prompt" {
		t.Fatalf("metadata %v", m)
	}
	var schema struct {
		Required   []string                   `json:"required"`
		Properties map[string]json.RawMessage `json:"properties"`
	}
	if err := json.Unmarshal(tool.GetInputSchema(), &schema); err != nil {
		t.Fatal(err)
	}
	if len(schema.Required) != 1 || schema.Required[0] != "action" || schema.Properties["lease"] == nil || schema.Properties["cron"] == nil {
		t.Fatalf("schema %s", tool.GetInputSchema())
	}
}
