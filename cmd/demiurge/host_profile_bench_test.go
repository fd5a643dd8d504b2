package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/hostd"
	"demiurge.dev/shared/hostv1"
)

// BenchmarkHostSocketCall is b.N one-shot `read_file` calls through the
// host socket (each a fresh session, as `tools call` sends it), with
// nothing else in the run: the load to profile the host process under
// (BENCHMARKS §19.5). With DEMIURGE_BENCH_HOST_PID_FILE set it writes the
// host's pid there once the host is warm, so a profiler can attach:
//
//	DEMIURGE_TEST_PLUGIN_DIR=$PWD/bin DEMIURGE_BENCH_HOST_PID_FILE=/tmp/pid \
//	  go test ./cmd/demiurge -run '^$' -bench HostSocketCall -benchtime 20000x &
//	perf record -g -p $(cat /tmp/pid) -- sleep 20
func BenchmarkHostSocketCall(b *testing.B) {
	dir := os.Getenv("DEMIURGE_TEST_PLUGIN_DIR")
	if dir == "" {
		b.Skip("needs DEMIURGE_TEST_PLUGIN_DIR=bin (make build)")
	}
	dir, _ = filepath.Abs(dir)
	state, ws := b.TempDir(), b.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("from the workspace\n"), 0o644)
	run := func(args ...string) {
		cmd := exec.Command(filepath.Join(dir, "demiurge"), append([]string{"--state", state, "--workspace", ws}, args...)...)
		cmd.Env = append(os.Environ(), "DEMIURGE_HOST=on", "DEMIURGE_HOST_IDLE_EXIT=5m")
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	defer run("host", "stop")
	run("tools", "call", "read_file", `{"path":"a.txt"}`) // starts the host, warms the plugins
	cl, err := hostd.Dial(context.Background(), state, hostd.DialOptions{Config: benchConfig(b, ws, dir)})
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	call := func() {
		out, err := callViaHost(context.Background(), cl, &hostv1.OpenSession{}, &hostv1.ToolCall{Name: "read_file", Args: []byte(`{"path":"a.txt"}`)},
			func(context.Context, approval.Request) approval.Answer { return approval.Deny })
		if err == nil && !out.OK() {
			err = fmt.Errorf("%s", out.Status)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	for range 200 {
		call()
	}
	if f := os.Getenv("DEMIURGE_BENCH_HOST_PID_FILE"); f != "" {
		pid, _ := hostd.Running(state)
		os.WriteFile(f, []byte(strconv.Itoa(pid)), 0o644)
	}
	b.ResetTimer()
	for range b.N {
		call()
	}
}
