package hostd

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/toolhost"
)

// BenchmarkSocketAdded is what the host socket adds to one one-shot
// call: a `read_file` in a fresh session through the socket (the
// front end's whole exchange: stream, open, call, outcome), against the
// host doing the same work in process (a fresh session, its turn, the
// call, the outcome encoded), interleaved in one loop so the machine's
// load falls on both alike. Run: go test ./hostd -run '^$' -bench
// SocketAdded -benchtime 2000x (DEMIURGE_TEST_PLUGIN_DIR=bin).
func BenchmarkSocketAdded(b *testing.B) {
	th := startHost(b, time.Hour)
	c := th.dial(b)
	ctx := context.Background()
	inProcess := func(i int) error {
		ses := th.h.OpenSessionAs(th.h.RootPrincipal(), false)
		defer ses.End()
		turn, err := ses.NewTurnWith(ctx, toolhost.TurnOptions{Tool: "read_file", Unrecorded: true})
		if err != nil {
			return err
		}
		out := turn.Call(ctx, dispatch.ToolCall{ID: fmt.Sprintf("cli_%d", i), Name: "read_file", Args: []byte(`{"path":"a.txt"}`)})
		if !out.OK() {
			return fmt.Errorf("%s", out.Status)
		}
		_, err = encodeOutcome(out)
		return err
	}
	socket := func() error {
		out, _, err := call(ctx, c, "", "read_file", `{"path":"a.txt"}`, approval.Deny)
		if err == nil && !out.OK() {
			err = fmt.Errorf("%s", out.Status)
		}
		return err
	}
	for i := range 50 { // warm both paths
		if err := socket(); err != nil {
			b.Fatal(err)
		}
		if err := inProcess(i); err != nil {
			b.Fatal(err)
		}
	}
	var sock, local, diff []time.Duration
	b.ResetTimer()
	for i := range b.N {
		begin := time.Now()
		if err := socket(); err != nil {
			b.Fatal(err)
		}
		sock = append(sock, time.Since(begin))
		begin = time.Now()
		if err := inProcess(i); err != nil {
			b.Fatal(err)
		}
		local = append(local, time.Since(begin))
		diff = append(diff, sock[i]-local[i])
	}
	b.StopTimer()
	ps, pl := p50(sock), p50(local)
	b.ReportMetric(float64(ps.Microseconds()), "socket-p50-µs")
	b.ReportMetric(float64(pl.Microseconds()), "inprocess-p50-µs")
	b.ReportMetric(float64((ps - pl).Microseconds()), "added-p50-µs")
	// The median of the paired differences: less moved by the store's
	// fdatasync, which dominates both and varies most.
	b.ReportMetric(float64(p50(diff).Microseconds()), "paired-added-p50-µs")
}

func p50(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}
