package runtime

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	bolt "go.etcd.io/bbolt"
)

const seekHole = 4 // SEEK_HOLE

// The store's file has no hole up to its end and keeps at least tailLow of
// written space past bbolt's last page: a commit that lands on a new page
// overwrites a written block, so its fdatasync has no block map to commit
// (tail.go).
func TestTheStoreFileHasWrittenSpacePastItsLastPage(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	data := []byte(`{"content":"` + strings.Repeat("x", 10000) + `"}`)
	for i := range 400 {
		if _, err := s.Append(context.Background(), Event{Kind: "tool.call", Session: "s", Data: data}); err != nil {
			t.Fatal(i, err)
		}
	}
	var last int64
	if err := s.db.View(func(tx *bolt.Tx) error { last = tx.Size(); return nil }); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		t.Fatal(err)
	}
	if last < 3*tailStep {
		t.Fatalf("the events took %d bytes; the test wants several extensions", last)
	}
	if fi.Size()-last < tailLow {
		t.Fatalf("%d bytes past the last page (at %d), want at least %d", fi.Size()-last, last, tailLow)
	}
	hole, err := f.Seek(0, seekHole)
	if err != nil {
		t.Skipf("SEEK_HOLE: %v", err)
	}
	if hole != fi.Size() {
		t.Fatalf("the store file has a hole at %d of %d bytes (last page ends at %d)", hole, fi.Size(), last)
	}
}

// The zeros the writer writes ahead never land on a committed page: every
// event written across several extensions, and across reopening the file
// with its tail, reads back as it was appended.
func TestTheTailNeverTouchesCommittedPages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.db")
	var want [][]byte
	for round := range 3 {
		s, err := Open(path)
		if err != nil {
			t.Fatal(round, err)
		}
		for i := range 300 {
			// Sizes vary so values straddle pages and overflow pages.
			d := fmt.Appendf(nil, `{"n":%d,"pad":"%s"}`, len(want), strings.Repeat("y", 100+(i*797)%8000))
			if _, err := s.Append(context.Background(), Event{Kind: "tool.call", Session: "s", Data: d}); err != nil {
				t.Fatal(err)
			}
			want = append(want, d)
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	evs, err := s.Events(EventQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != len(want) {
		t.Fatalf("%d events read back, %d appended", len(evs), len(want))
	}
	for i, ev := range evs {
		if !bytes.Equal(ev.Data, want[i]) {
			t.Fatalf("event %d reads back %.60q, appended %.60q", i, ev.Data, want[i])
		}
	}
	err = s.db.View(func(tx *bolt.Tx) error {
		for err := range tx.Check() {
			return err
		}
		return nil
	})
	if err != nil {
		t.Fatal("bbolt's check:", err)
	}
}
