package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) {
	if path := os.Getenv(auditChildEnv); path != "" {
		os.Exit(runAuditChild(path))
	}
	if path := os.Getenv(tailChildEnv); path != "" {
		os.Exit(runTailChild(path))
	}
	goleak.VerifyTestMain(m)
}

func openTemp(t *testing.T) (*Store, string) {
	t.Helper()
	path := filepath.Join(t.TempDir(), "state", "nested", "runtime.db")
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	return s, path
}

func mustAppend(t *testing.T, s *Store, ev Event) uint64 {
	t.Helper()
	seq, err := s.Append(context.Background(), ev)
	if err != nil {
		t.Fatal(err)
	}
	return seq
}

func TestOpenCreatesPrivateFileAndBuckets(t *testing.T) {
	s, path := openTemp(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]os.FileMode{filepath.Dir(path): 0o700, path: 0o600} {
		fi, err := os.Stat(p)
		if err != nil {
			t.Fatal(err)
		}
		if fi.Mode().Perm() != want {
			t.Errorf("%s has mode %v, want %v", p, fi.Mode().Perm(), want)
		}
	}
	db, err := bolt.Open(path, 0o600, &bolt.Options{ReadOnly: true, Timeout: time.Second})
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	err = db.View(func(tx *bolt.Tx) error {
		for _, name := range []string{"events", "tasks", "task_logs", "approvals", "sessions", "messages", "schedules", "artifacts"} {
			if tx.Bucket([]byte(name)) == nil {
				t.Errorf("bucket %s missing", name)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestOpenTightensWideFile(t *testing.T) {
	s, path := openTemp(t)
	s.Close()
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if fi, _ := os.Stat(path); fi.Mode().Perm() != 0o600 {
		t.Fatalf("mode %v after reopen, want 0600", fi.Mode().Perm())
	}
}

func TestAppendIsDurableAcrossReopen(t *testing.T) {
	s, path := openTemp(t)
	when := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	in := Event{Time: when, Kind: "tool.call", Session: "s1", Tool: "read_file", CallID: "c1", Data: json.RawMessage(`{"is_error":false}`)}
	seq := mustAppend(t, s, in)
	if seq != 1 {
		t.Fatalf("first seq = %d, want 1", seq)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
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
	in.Seq = 1
	if len(evs) != 1 || !evs[0].Time.Equal(when) || evs[0].Kind != in.Kind || evs[0].Session != in.Session ||
		evs[0].Tool != in.Tool || evs[0].CallID != in.CallID || string(evs[0].Data) != string(in.Data) || evs[0].Seq != 1 {
		t.Fatalf("after reopen got %+v, want %+v", evs, in)
	}
	if seq := mustAppend(t, s, Event{Kind: "k"}); seq != 2 {
		t.Fatalf("seq after reopen = %d, want 2", seq)
	}
}

func TestConcurrentAppendsAllLandWithDistinctSeqs(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	const workers, each = 8, 40
	seqs := make(chan uint64, workers*each)
	var wg sync.WaitGroup
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				seq, err := s.Append(context.Background(), Event{Kind: "k", CallID: string(rune('a'+w)) + "-" + string(rune('0'+i%10))})
				if err != nil {
					t.Error(err)
					return
				}
				seqs <- seq
			}
		}()
	}
	wg.Wait()
	close(seqs)
	seen := map[uint64]bool{}
	for seq := range seqs {
		if seen[seq] {
			t.Fatalf("seq %d returned twice", seq)
		}
		seen[seq] = true
	}
	if len(seen) != workers*each {
		t.Fatalf("%d distinct seqs, want %d", len(seen), workers*each)
	}
	evs, err := s.Events(EventQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != workers*each {
		t.Fatalf("%d events stored, want %d", len(evs), workers*each)
	}
	for i, ev := range evs {
		if ev.Seq != uint64(i+1) || !seen[ev.Seq] {
			t.Fatalf("event %d has seq %d", i, ev.Seq)
		}
	}
}

func TestClosedStoreRefusesWork(t *testing.T) {
	s, _ := openTemp(t)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Append(context.Background(), Event{Kind: "k"}); !errors.Is(err, ErrClosed) {
		t.Errorf("Append after Close: %v, want ErrClosed", err)
	}
	if _, err := s.Events(EventQuery{}); !errors.Is(err, ErrClosed) {
		t.Errorf("Events after Close: %v, want ErrClosed", err)
	}
	if err := s.Close(); !errors.Is(err, ErrClosed) {
		t.Errorf("second Close: %v, want ErrClosed", err)
	}
}

func TestCloseCommitsEverythingAccepted(t *testing.T) {
	s, path := openTemp(t)
	var wg sync.WaitGroup
	var mu sync.Mutex
	accepted := 0
	start, busy := make(chan struct{}), make(chan struct{})
	for range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			<-start
			for {
				_, err := s.Append(context.Background(), Event{Kind: "k"})
				if errors.Is(err, ErrClosed) {
					return
				}
				if err != nil {
					t.Error(err)
					return
				}
				mu.Lock()
				accepted++
				if accepted == 50 {
					close(busy)
				}
				mu.Unlock()
			}
		}()
	}
	close(start)
	// Close while the appenders are busy: after 50 accepted appends.
	select {
	case <-busy:
	case <-time.After(30 * time.Second):
		t.Fatal("50 appends were not accepted within 30s")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	evs, err := s.Events(EventQuery{})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != accepted {
		t.Fatalf("%d events on disk, %d appends reported success", len(evs), accepted)
	}
}

func TestSecondOpenFailsClearly(t *testing.T) {
	old := lockTimeout
	lockTimeout = 100 * time.Millisecond
	defer func() { lockTimeout = old }()
	s, path := openTemp(t)
	defer s.Close()
	_, err := Open(path)
	if err == nil {
		t.Fatal("second Open of a file in use succeeded")
	}
	if !errors.Is(err, berrors.ErrTimeout) || !strings.Contains(err.Error(), "state store "+path+" is in use by another demiurge process") {
		t.Fatalf("unclear error: %v", err)
	}
}

func TestAppendRejects(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	cancelled, cancel := context.WithCancel(context.Background())
	cancel()
	for _, tc := range []struct {
		name string
		ctx  context.Context
		ev   Event
		want string
	}{
		{"no kind", context.Background(), Event{}, "no kind"},
		{"data not json", context.Background(), Event{Kind: "k", Data: json.RawMessage(`{oops`)}, "encode k event"},
		{"cancelled context", cancelled, Event{Kind: "k"}, "context canceled"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := s.Append(tc.ctx, tc.ev); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Append: %v, want an error containing %q", err, tc.want)
			}
		})
	}
	evs, err := s.Events(EventQuery{})
	if err != nil || len(evs) != 0 {
		t.Fatalf("rejected appends left %d events (%v)", len(evs), err)
	}
}
