package runtime

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
)

// Reading the figures: BenchmarkAppendSequential should be within about one
// commit of BenchmarkBareBoltCommit (the queue adds microseconds; the commit,
// two fdatasyncs, costs around a millisecond), and BenchmarkAppendParallel8's
// calls/sec should be events/commit times the bare commit rate. All three
// are dominated by fsync latency, so compare runs made at the same time.

// benchEvent is about the size of a real audit event for a tool call.
var benchEvent = Event{
	Kind: "tool.call", Session: "session-0123456789", Tool: "read_file", CallID: "call_0123456789abcdef",
	Data: json.RawMessage(`{"is_error":false,"arg_keys":["path"],"content_bytes":1834,"model_output_bytes":1834,` +
		`"secret_sources":[],"duration_ms":3,"approval":"auto","risk":"low","capability":"fs.read",` +
		`"preview":"{\"path\":\"README.md\"}","padding":"` + strings.Repeat("x", 80) + `"}`),
}

func benchStore(b *testing.B) *Store {
	b.Helper()
	s, err := Open(filepath.Join(b.TempDir(), "runtime.db"))
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { s.Close() })
	return s
}

// BenchmarkBareBoltCommit is the floor: one bbolt transaction (one fsync)
// per event, no queue.
func BenchmarkBareBoltCommit(b *testing.B) {
	db, err := bolt.Open(filepath.Join(b.TempDir(), "bare.db"), 0o600, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	if err := db.Update(func(tx *bolt.Tx) error {
		_, err := tx.CreateBucket([]byte(BucketEvents))
		return err
	}); err != nil {
		b.Fatal(err)
	}
	value, err := encodeEvent(Event{Time: time.Now(), Kind: benchEvent.Kind, Session: benchEvent.Session,
		Tool: benchEvent.Tool, CallID: benchEvent.CallID, Data: benchEvent.Data})
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for b.Loop() {
		err := db.Update(func(tx *bolt.Tx) error {
			bk := tx.Bucket([]byte(BucketEvents))
			seq, err := bk.NextSequence()
			if err != nil {
				return err
			}
			return bk.Put(seqKey(seq), value)
		})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendSequential: one caller, so every Append is its own commit.
func BenchmarkAppendSequential(b *testing.B) {
	s := benchStore(b)
	ctx := context.Background()
	b.ResetTimer()
	for b.Loop() {
		if _, err := s.Append(ctx, benchEvent); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAppendParallel8: eight callers share commits.
func BenchmarkAppendParallel8(b *testing.B) {
	const callers = 8
	s := benchStore(b)
	ctx := context.Background()
	b.ResetTimer()
	start := time.Now()
	var wg sync.WaitGroup
	for c := range callers {
		n := b.N / callers
		if c < b.N%callers {
			n++
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n {
				if _, err := s.Append(ctx, benchEvent); err != nil {
					b.Error(err)
					return
				}
			}
		}()
	}
	wg.Wait()
	b.ReportMetric(float64(b.N)/time.Since(start).Seconds(), "calls/sec")
	b.ReportMetric(float64(b.N)/float64(s.commits.Load()), "events/commit")
}
