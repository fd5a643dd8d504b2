package main

import (
	"context"
	"os"
	"strconv"
	"testing"

	"demiurge.dev/host/hostd"
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
	dir, state, ws, _ := warmHost(b)
	cl, err := hostd.Dial(context.Background(), state, hostd.DialOptions{Config: benchConfig(b, ws, dir)})
	if err != nil {
		b.Fatal(err)
	}
	defer cl.Close()
	call := func() {
		if err := readViaHost(cl); err != nil {
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
