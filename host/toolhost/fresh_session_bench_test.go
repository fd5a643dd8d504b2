package toolhost

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/runtime"
)

// BenchmarkFreshSessionParts splits what a fresh front end session adds
// to a one-shot call (the long-lived host opens one per `tools call`):
// opening it, its catalog (shared from the last fresh session; and, for
// the ratio, a whole resolution as before the host shared it),
// recording it in the store, and the call itself, against the same call
// in a session that has done all that before.
func BenchmarkFreshSessionParts(b *testing.B) {
	ws := b.TempDir()
	os.WriteFile(filepath.Join(ws, "a.txt"), []byte("hello\n"), 0o644)
	h, err := Open(Options{Workspace: ws, StateDir: b.TempDir(), BuiltinPluginDir: builtinDir})
	if err != nil {
		b.Fatal(err)
	}
	defer h.Close()
	store, err := h.Store()
	if err != nil {
		b.Fatal(err)
	}
	ctx := context.Background()
	call := func(s *Session, i int) {
		t, err := s.NewTurn(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if out := t.Call(ctx, dispatch.ToolCall{ID: "b" + strconv.Itoa(i), Name: "read_file", Args: []byte(`{"path":"a.txt"}`)}); !out.OK() {
			b.Fatal(out.Status)
		}
	}
	warm := h.OpenSessionAs("", false)
	call(warm, 0)
	var open, cat, resolve, rec, first, same time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		t0 := time.Now()
		s := h.OpenSessionAs("", false)
		t1 := time.Now()
		if _, err := s.Catalog(ctx); err != nil {
			b.Fatal(err)
		}
		t2 := time.Now()
		if err := store.RecordSession(ctx, runtime.SessionRecord{ID: s.ID(), Principal: s.Authority().Principal}); err != nil {
			b.Fatal(err)
		}
		t3 := time.Now()
		call(s, i) // its catalog cached, its record there: the call alone
		t4 := time.Now()
		call(warm, i)
		t5 := time.Now()
		// What the catalog cost a fresh session before the host shared
		// it: a whole resolution, in the same loop.
		if _, _, _, err := h.resolveCatalog(ctx, s, TurnOptions{}); err != nil {
			b.Fatal(err)
		}
		resolve += time.Since(t5)
		s.End()
		open += t1.Sub(t0)
		cat += t2.Sub(t1)
		rec += t3.Sub(t2)
		first += t4.Sub(t3)
		same += t5.Sub(t4)
	}
	n := float64(b.N)
	us := func(d time.Duration) float64 { return float64(d.Microseconds()) / n }
	b.ReportMetric(us(open), "open-µs")
	b.ReportMetric(us(cat), "catalog-µs")
	b.ReportMetric(us(resolve), "catalog-unshared-µs")
	b.ReportMetric(us(rec), "record-µs")
	b.ReportMetric(us(first), "call-fresh-µs")
	b.ReportMetric(us(same), "call-same-µs")
}
