package main

import (
	"bytes"
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

	"demiurge.dev/sdk/sdktest"
	"demiurge.dev/shared/toolsetv1"
)

// A plugin killed with SIGKILL in the middle of patching a large file
// leaves the file as it was and no staged file behind: the staged content
// is an anonymous (O_TMPFILE) inode until the instant it is published, so
// the kernel frees it with the process.
func TestKilledPluginLeavesNoStagedFile(t *testing.T) {
	ws := t.TempDir()
	big := filepath.Join(ws, "big.txt")
	line := []byte("a line of a large file that the patch streams through\n")
	f, err := os.Create(big)
	if err != nil {
		t.Fatal(err)
	}
	chunk := bytes.Repeat(line, (1<<20)/len(line))
	for range 192 { // ~192 MiB
		f.Write(chunk)
	}
	f.WriteString("the marker at the end\n")
	f.Close()
	before, _ := os.Stat(big)

	cmd := exec.Command(os.Args[0])
	cmd.Env = []string{serveChildEnv + "=1"}
	client, ts := sdktest.Start(t, cmd)
	pid := client.ReattachConfig().Pid
	args, _ := json.Marshal(map[string]any{"path": "big.txt", "old_string": "the marker at the end", "new_string": "patched"})
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	stream, err := ts.Invoke(ctx, &toolsetv1.EffectRequest{InvocationId: "inv_killed", Tool: "patch", Arguments: args, Workspace: ws})
	if err != nil {
		t.Fatal(err)
	}
	// Wait until the plugin holds a staged file of some size, then kill it.
	staged := ""
	deadline := time.Now().Add(20 * time.Second)
	for staged == "" {
		if time.Now().After(deadline) {
			t.Fatal("the plugin never held a staged file of 4 MiB within 20s")
		}
		ents, _ := os.ReadDir("/proc/" + strconv.Itoa(pid) + "/fd")
		for _, e := range ents {
			fdp := "/proc/" + strconv.Itoa(pid) + "/fd/" + e.Name()
			dst, err := os.Readlink(fdp)
			if err != nil || !strings.HasPrefix(dst, ws+"/") || dst == big {
				continue
			}
			if fi, err := os.Stat(fdp); err == nil && fi.Size() > 4<<20 {
				staged = dst
			}
		}
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if _, err := stream.Recv(); err == nil {
		for {
			ev, err := stream.Recv()
			if err != nil {
				break
			}
			if ev.GetResult() != nil {
				t.Fatal("the killed plugin returned a result")
			}
		}
	}
	for deadline := time.Now().Add(10 * time.Second); syscall.Kill(pid, 0) == nil; time.Sleep(10 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatal("the killed plugin is still there after 10s")
		}
	}
	t.Logf("killed while holding %s", staged)
	ents, err := os.ReadDir(ws)
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range ents {
		if e.Name() != "big.txt" {
			t.Errorf("left in the workspace: %s", e.Name())
		}
	}
	after, _ := os.Stat(big)
	if after.Size() != before.Size() || !after.ModTime().Equal(before.ModTime()) {
		t.Fatalf("the file changed: %d bytes at %v, was %d at %v", after.Size(), after.ModTime(), before.Size(), before.ModTime())
	}
}
