// Package runtime is the host's durable state: one bbolt file under the
// state directory holding the event log and, as later parts arrive, tasks,
// approvals, sessions, messages, schedules and the artifact index.
package runtime

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	bolt "go.etcd.io/bbolt"
	berrors "go.etcd.io/bbolt/errors"
)

// Bucket names. Every bucket exists once Open returns.
const (
	BucketEvents    = "events"
	BucketTasks     = "tasks"
	BucketTaskLogs  = "task_logs"
	BucketApprovals = "approvals"
	BucketSessions  = "sessions"
	BucketMessages  = "messages"
	BucketSchedules = "schedules"
	BucketArtifacts = "artifacts"
	// BucketArtifactTotals holds the indexed artifacts' total size, kept
	// in the same transactions as the index, so the budget check is one
	// read instead of a scan.
	BucketArtifactTotals = "artifact_totals"
	// BucketActivations holds the deferred tools each session activated
	// (activations.go).
	BucketActivations = "activations"
	// BucketSessionModels holds the model each session last ran with
	// (session_model.go).
	BucketSessionModels = "session_models"
)

var buckets = []string{
	BucketEvents, BucketTasks, BucketTaskLogs, BucketApprovals,
	BucketSessions, BucketMessages, BucketSchedules, BucketArtifacts,
	BucketArtifactTotals, BucketActivations, BucketTodos, BucketSessionModels, BucketBootstrap,
}

// lockTimeout bounds how long Open waits for another process to release the
// file. A variable so tests need not wait the full time.
var lockTimeout = 2 * time.Second

// ErrClosed is returned by every operation on a closed store.
var ErrClosed = errors.New("state store is closed")

// Store is the durable runtime store. It is safe for concurrent use.
type Store struct {
	db   *bolt.DB
	path string

	// mu guards closed. Operations hold it shared for their whole run so
	// that Close, which takes it exclusively, waits for them.
	mu     sync.RWMutex
	closed bool

	queue   chan *appendReq
	commits atomic.Uint64 // transactions committed by the writer, for benchmarks
	// tail is the file's written space past bbolt's last page, kept by
	// the writer (tail.go); nil when the file could not be stat'ed.
	tail *tailFile

	// submitted holds Submit'ed events waiting for company; submitWake
	// tells the writer that the list became non-empty or reached
	// submitGroup.
	subMu     sync.Mutex
	submitted []*appendReq
	// timed counts the submitted events that wait at most submitDelay
	// (rides, RideMessages, wait for the next commit whatever its time).
	timed      int
	submitWake chan struct{}
	stop       chan struct{}
	done       chan struct{}
}

// Open opens or creates the store at path. The directory is created 0700
// and the file 0600 (a wider existing file is tightened: it holds audit data).
func Open(path string) (*Store, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("create state directory for %s: %w", path, err)
	}
	if fi, err := os.Stat(path); err == nil && fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(path, 0o600); err != nil {
			return nil, fmt.Errorf("state store %s is readable by others and could not be made private: %w", path, err)
		}
	}
	tail := &tailFile{}
	db, err := bolt.Open(path, 0o600, &bolt.Options{Timeout: lockTimeout,
		OpenFile: func(name string, flag int, perm os.FileMode) (*os.File, error) {
			f, err := os.OpenFile(name, flag, perm)
			tail.f = f // the file bbolt writes (tail.go)
			return f, err
		}})
	if errors.Is(err, berrors.ErrTimeout) {
		return nil, fmt.Errorf("state store %s is in use by another demiurge process (lock not released within %s); stop it or use another --state directory: %w", path, lockTimeout, err)
	}
	if err != nil {
		return nil, fmt.Errorf("open state store %s: %w (move the file aside if it is damaged)", path, err)
	}
	err = db.Update(func(tx *bolt.Tx) error {
		for _, name := range buckets {
			if _, err := tx.CreateBucketIfNotExists([]byte(name)); err != nil {
				return fmt.Errorf("bucket %s: %w", name, err)
			}
		}
		return nil
	})
	if err != nil {
		db.Close()
		return nil, fmt.Errorf("prepare state store %s: %w", path, err)
	}
	if fi, err := statOf(tail.f); err == nil {
		tail.size = fi.Size()
	} else {
		tail = nil
	}
	s := &Store{
		db:         db,
		path:       path,
		tail:       tail,
		queue:      make(chan *appendReq, queueSize),
		submitWake: make(chan struct{}, 1),
		stop:       make(chan struct{}),
		done:       make(chan struct{}),
	}
	go s.writer()
	return s, nil
}

// Path is the file the store lives in.
func (s *Store) Path() string { return s.path }

// Close commits every append already queued, stops the writer and closes the
// file. Calling it again returns ErrClosed.
func (s *Store) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return ErrClosed
	}
	s.closed = true
	s.mu.Unlock()
	// No Append can enqueue any more: each one checks closed under mu.
	close(s.stop)
	<-s.done
	seqsByStore.Delete(s)
	if err := s.db.Close(); err != nil {
		return fmt.Errorf("close state store %s: %w", s.path, err)
	}
	return nil
}

// view runs fn in a read transaction unless the store is closed.
func (s *Store) view(fn func(tx *bolt.Tx) error) error {
	s.mu.RLock()
	defer s.mu.RUnlock()
	if s.closed {
		return ErrClosed
	}
	return s.db.View(fn)
}
