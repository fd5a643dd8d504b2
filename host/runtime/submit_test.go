package runtime

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"
)

// submitted collects the outcomes of Submit's done callbacks.
type submitted struct {
	mu   sync.Mutex
	wg   sync.WaitGroup
	seqs []uint64
	errs []error
}

func (c *submitted) submit(t *testing.T, s *Store, n int) {
	t.Helper()
	for i := range n {
		c.wg.Add(1)
		err := s.Submit(context.Background(), Event{Kind: "submitted", CallID: fmt.Sprint(i)}, func(seq uint64, err error) {
			c.mu.Lock()
			c.seqs, c.errs = append(c.seqs, seq), append(c.errs, err)
			c.mu.Unlock()
			c.wg.Done()
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// wait fails the test instead of hanging when an event is never committed.
func (c *submitted) wait(t *testing.T) {
	t.Helper()
	done := make(chan struct{})
	go func() { c.wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		t.Fatal("submitted events were not committed")
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	for i, err := range c.errs {
		if err != nil || c.seqs[i] == 0 {
			t.Fatalf("submitted event: seq %d, err %v", c.seqs[i], err)
		}
	}
}

// holdSubmits makes the delay of a lone Submit longer than any test, so
// that only an Append, a full group or Close can commit it.
func holdSubmits(t *testing.T) {
	old := submitDelay
	submitDelay = time.Hour
	t.Cleanup(func() { submitDelay = old })
}

func TestSubmitIsCommittedWithoutAnAppend(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	var c submitted
	c.submit(t, s, 3)
	c.wait(t)
	evs, err := s.Events(EventQuery{Kind: "submitted"})
	if err != nil || len(evs) != 3 {
		t.Fatalf("events %v, %v; want the 3 submitted", evs, err)
	}
}

func TestAppendTakesSubmittedEventsAlong(t *testing.T) {
	holdSubmits(t)
	s, _ := openTemp(t)
	defer s.Close()
	var c submitted
	c.submit(t, s, 5)
	seq := mustAppend(t, s, Event{Kind: "appended"})
	c.wait(t)
	evs, err := s.Events(EventQuery{})
	if err != nil || len(evs) != 6 {
		t.Fatalf("events %v, %v; want 5 submitted and 1 appended", evs, err)
	}
	for _, ev := range evs {
		if ev.Kind == "submitted" && ev.Seq > seq {
			t.Errorf("submitted event %d landed after the append %d that followed it", ev.Seq, seq)
		}
	}
	if s.commits.Load() != 1 {
		t.Errorf("%d commits, want the append's one", s.commits.Load())
	}
}

func TestFullSubmitGroupIsCommittedAtOnce(t *testing.T) {
	holdSubmits(t)
	s, _ := openTemp(t)
	defer s.Close()
	var c submitted
	c.submit(t, s, submitGroup)
	c.wait(t)
}

func TestCloseCommitsSubmittedEvents(t *testing.T) {
	holdSubmits(t)
	s, path := openTemp(t)
	var c submitted
	c.submit(t, s, 3)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	c.wait(t)
	s, err := Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if evs, err := s.Events(EventQuery{}); err != nil || len(evs) != 3 {
		t.Fatalf("events after reopen %v, %v; want the 3 submitted", evs, err)
	}
	if err := s.Submit(context.Background(), Event{Kind: "k"}, nil); err != nil {
		t.Fatal(err)
	}
}

func TestSubmitRejects(t *testing.T) {
	s, _ := openTemp(t)
	if err := s.Submit(context.Background(), Event{}, nil); err == nil {
		t.Error("an event without a kind was accepted")
	}
	s.Close()
	if err := s.Submit(context.Background(), Event{Kind: "k"}, nil); !errors.Is(err, ErrClosed) {
		t.Errorf("Submit on a closed store: %v, want ErrClosed", err)
	}
}
