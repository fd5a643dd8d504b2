package search

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/runtime"
	"demiurge.dev/shared/toolsetv1"
)

// vocabulary of made-up words, so term frequencies look like text: a few
// common, most rare.
var vocabulary = func() []string {
	r := rand.New(rand.NewPCG(1, 2))
	out := make([]string, 3000)
	for i := range out {
		n := 3 + r.IntN(8)
		b := make([]byte, n)
		for j := range b {
			b[j] = byte('a' + r.IntN(26))
		}
		out[i] = string(b)
	}
	return out
}()

func sentence(r *rand.Rand, words int) string {
	parts := make([]string, words)
	for i := range parts {
		// Zipf-like: small indices far more often.
		parts[i] = vocabulary[int(float64(len(vocabulary))*r.Float64()*r.Float64()*r.Float64())]
	}
	return strings.Join(parts, " ")
}

// loaded is a store and index with n messages of about 40 words in
// sessions of per messages each, all of one principal; the current
// session is the first.
func loaded(b *testing.B, n, per int) (*History, Scope) {
	store, ix, h := fixture(b)
	r := rand.New(rand.NewPCG(3, 4))
	ctx := context.Background()
	for s := 0; s*per < n; s++ {
		id := fmt.Sprintf("ses_bench%03d", s)
		if err := store.RecordSession(ctx, runtime.SessionRecord{ID: id, Principal: "local:me"}); err != nil {
			b.Fatal(err)
		}
		msgs := make([]runtime.MessageRecord, min(per, n-s*per))
		for i := range msgs {
			msgs[i] = runtime.MessageRecord{Role: []string{"user", "assistant", "tool"}[i%3], Text: sentence(r, 40)}
		}
		for i := 0; i < len(msgs); i += 100 {
			add(b, store, id, msgs[i:min(i+100, len(msgs))]...)
		}
	}
	if err := ix.Flush(ctx); err != nil {
		b.Fatal(err)
	}
	return h, Scope{Principal: "local:me", Session: "ses_bench000", LocalOperator: true}
}

// BenchmarkSessionSearch10k is one full-text session_search over 10,000
// stored messages: in one session of 10,000, and under the operator scope
// across 20 sessions of 500. It reports p50 and p99 of single searches.
func BenchmarkSessionSearch10k(b *testing.B) {
	for _, c := range []struct {
		name     string
		per      int
		operator bool
	}{{"one_session", 10000, false}, {"operator_20_sessions", 500, true}} {
		b.Run(c.name, func(b *testing.B) {
			h, sc := loaded(b, 10000, c.per)
			r := rand.New(rand.NewPCG(5, 6))
			ctx := context.Background()
			var lat []time.Duration
			b.ResetTimer()
			for b.Loop() {
				q := vocabulary[r.IntN(200)] + " " + vocabulary[r.IntN(2000)]
				req := &toolsetv1.SessionSearchRequest{Query: q}
				if c.operator {
					req.OperatorScope, req.Reason = true, "bench"
				}
				t0 := time.Now()
				if _, err := h.Search(ctx, sc, req); err != nil {
					b.Fatal(err)
				}
				lat = append(lat, time.Since(t0))
			}
			report(b, lat)
		})
	}
}

// BenchmarkIndexWrite is the cost of indexing. One op appends a batch of
// messages (1, or a model step's 3) through AppendMessages. store: no
// index. indexed: the index observes the appends (the caller's cost;
// the op count's messages are searchable at the end, timed). searchable:
// each op waits until its messages can be found.
func BenchmarkIndexWrite(b *testing.B) {
	for _, batch := range []int{1, 3} {
		for _, mode := range []string{"store", "indexed", "searchable"} {
			b.Run(fmt.Sprintf("batch%d/%s", batch, mode), func(b *testing.B) {
				dir := b.TempDir()
				store, err := runtime.Open(filepath.Join(dir, "s.db"))
				if err != nil {
					b.Fatal(err)
				}
				defer store.Close()
				var ix *Index
				if mode != "store" {
					if ix, err = Open(filepath.Join(dir, "index"), store); err != nil {
						b.Fatal(err)
					}
					defer ix.Close()
				}
				r := rand.New(rand.NewPCG(7, 8))
				ctx := context.Background()
				msgs := make([]runtime.MessageRecord, batch)
				b.ResetTimer()
				for b.Loop() {
					for i := range msgs {
						msgs[i] = runtime.MessageRecord{Role: "assistant", Text: sentence(r, 40)}
					}
					if _, err := store.AppendMessages(ctx, "ses_w", msgs); err != nil {
						b.Fatal(err)
					}
					if mode == "searchable" {
						if err := ix.Flush(ctx); err != nil {
							b.Fatal(err)
						}
					}
				}
				if ix != nil {
					if err := ix.Flush(ctx); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Microseconds())/float64(b.N*batch), "µs/msg")
			})
		}
	}
}

func report(b *testing.B, lat []time.Duration) {
	if len(lat) == 0 {
		return
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkOpenClose is what a host pays to open and close an existing
// index (with nothing to catch up): every turn's host whose catalog has
// session_search opens it once.
func BenchmarkOpenClose(b *testing.B) {
	dir := b.TempDir()
	store, err := runtime.Open(filepath.Join(dir, "s.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer store.Close()
	ix, err := Open(filepath.Join(dir, "index"), store)
	if err != nil {
		b.Fatal(err)
	}
	add(b, store, "ses_a", runtime.MessageRecord{Role: "user", Text: "hello"})
	ix.Close()
	var lat []time.Duration
	for b.Loop() {
		t0 := time.Now()
		ix, err := Open(filepath.Join(dir, "index"), store)
		if err != nil {
			b.Fatal(err)
		}
		if err := ix.Close(); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	report(b, lat)
}
