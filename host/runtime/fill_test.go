package runtime

import (
	"context"
	"path/filepath"
	"sync"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestEventPagesAreFull: events only ever append (their keys are the
// bucket's sequence), so the store fills their pages instead of leaving
// them half empty at each split as bbolt does by default; a group commit
// then writes about half as many pages. Filled through the writer by
// concurrent Submits, as the call path does, and read back in order.
func TestEventPagesAreFull(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "runtime.db"))
	if err != nil {
		t.Fatal(err)
	}
	const n = 3000
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range n / 4 {
				if err := s.Submit(context.Background(), benchEvent, nil); err != nil {
					t.Error(w, err)
					return
				}
			}
		}()
	}
	wg.Wait()
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	db, err := bolt.Open(s.path, 0o600, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.View(func(tx *bolt.Tx) error {
		b := tx.Bucket([]byte(BucketEvents))
		st := b.Stats()
		if st.KeyN != n {
			t.Errorf("%d events stored, want %d", st.KeyN, n)
		}
		if fill := float64(st.LeafInuse) / float64(st.LeafAlloc); fill < 0.85 {
			t.Errorf("event pages are %.0f%% full (%d of %d bytes in %d pages), want at least 85%%", 100*fill, st.LeafInuse, st.LeafAlloc, st.LeafPageN)
		}
		var prev []byte
		return b.ForEach(func(k, _ []byte) error {
			if prev != nil && string(k) <= string(prev) {
				t.Fatalf("keys out of order: %x after %x", k, prev)
			}
			prev = append(prev[:0], k...)
			return nil
		})
	}); err != nil {
		t.Fatal(err)
	}
}
