package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/hashicorp/go-plugin"

	"demiurge.dev/sdk/sdktest"
	"demiurge.dev/shared"
	"demiurge.dev/shared/toolsetv1"
)

// pluginTerminal is this test binary started as the real coding plugin,
// with an Invoke of the terminal running in it.
type pluginTerminal struct {
	client *plugin.Client
	ts     *shared.ToolsetClient
	stream toolsetv1.Toolset_InvokeClient
	cancel context.CancelFunc
	pgid   int
}

// startTreeInPlugin starts the plugin and a command that prints its
// process group and leaves a tree of sleeps behind.
func startTreeInPlugin(t *testing.T, id string) *pluginTerminal {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = []string{serveChildEnv + "=1"}
	client, ts := sdktest.Start(t, cmd)
	ws := t.TempDir()
	args, _ := json.Marshal(map[string]any{"command": "echo $$; sleep 60 & sh -c 'trap \"\" TERM; exec sleep 60' & wait", "timeout": 120})
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	pt := &pluginTerminal{client: client, ts: ts, cancel: cancel}
	var err error
	pt.stream, err = pt.ts.Invoke(ctx, &toolsetv1.EffectRequest{
		InvocationId: id, Tool: "terminal", Arguments: args, Workspace: ws,
		ArtifactRoot: filepath.Join(t.TempDir(), "artifacts"), Env: []string{"PATH=/usr/bin:/bin"},
	})
	if err != nil {
		t.Fatal(err)
	}
	for pt.pgid == 0 {
		ev, err := pt.stream.Recv()
		if err != nil {
			t.Fatalf("no output before %v", err)
		}
		if out := ev.GetOutput(); out != nil {
			pt.pgid, _ = strconv.Atoi(strings.TrimSpace(string(out.GetData())))
		}
	}
	deadline := time.Now().Add(10 * time.Second)
	for len(liveInGroup(pt.pgid)) < 3 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	return pt
}

// result reads the stream to its ToolResult.
func (pt *pluginTerminal) result(t *testing.T) *toolsetv1.ToolResult {
	t.Helper()
	for {
		ev, err := pt.stream.Recv()
		if err != nil {
			t.Fatalf("stream ended without a result: %v", err)
		}
		if r := ev.GetResult(); r != nil {
			return r
		}
	}
}

// liveInGroup lists the live (non-zombie) processes of a group from /proc.
func liveInGroup(pgid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		if len(f) > 2 && f[0] != "Z" && f[2] == strconv.Itoa(pgid) {
			out = append(out, pid)
		}
	}
	return out
}

func waitGone(t *testing.T, pgid int, within time.Duration) {
	t.Helper()
	deadline := time.Now().Add(within)
	for len(liveInGroup(pgid)) > 0 {
		if time.Now().After(deadline) {
			left := liveInGroup(pgid)
			for _, pid := range left {
				_ = syscall.Kill(pid, syscall.SIGKILL)
			}
			t.Fatalf("group %d still has %v after %v", pgid, left, within)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestPluginCancelRPCEndsTheTree(t *testing.T) {
	pt := startTreeInPlugin(t, "inv_cancel")
	resp, err := pt.ts.Cancel(context.Background(), &toolsetv1.CancelRequest{InvocationId: "inv_cancel"})
	if err != nil || !resp.GetFound() {
		t.Fatalf("Cancel = %v, %v", resp, err)
	}
	res := pt.result(t)
	if !res.GetIsError() || res.GetErrorCode() != "cancelled" {
		t.Fatalf("result %s %s", res.GetErrorCode(), res.GetContent())
	}
	waitGone(t, pt.pgid, 5*time.Second)
}

func TestPluginStreamCancellationEndsTheTree(t *testing.T) {
	pt := startTreeInPlugin(t, "inv_ctx")
	pt.cancel()
	waitGone(t, pt.pgid, 5*time.Second)
}

func TestPluginShutdownEndsTheTree(t *testing.T) {
	pt := startTreeInPlugin(t, "inv_stop")
	pt.client.Kill() // graceful: Serve returns, main shuts the runner down
	waitGone(t, pt.pgid, 5*time.Second)
}
