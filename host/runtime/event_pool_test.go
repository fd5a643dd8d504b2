package runtime

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"

	bolt "go.etcd.io/bbolt"
)

// TestPooledEventValuesKeepTheirBytes appends and submits events from
// several goroutines, so that events are encoded into pooled bytes while
// earlier groups are being committed: every stored event must still read
// as the one its caller handed over (a buffer given back before its
// transaction ended would show another event's bytes).
func TestPooledEventValuesKeepTheirBytes(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	ctx := context.Background()
	const writers, each = 8, 150
	var wg sync.WaitGroup
	for g := range writers {
		wg.Go(func() {
			for i := range each {
				// Sizes vary so that pooled buffers are reused at other lengths.
				pad := strings.Repeat("x", (g*each+i)%97)
				ev := Event{Kind: "pool.test", Session: "s", CallID: fmt.Sprintf("g%d-%d", g, i),
					Data: json.RawMessage(fmt.Sprintf(`{"call":"g%d-%d","pad":"%s"}`, g, i, pad))}
				var err error
				if i%2 == 0 {
					_, err = s.Append(ctx, ev)
				} else {
					err = s.Submit(ctx, ev, nil)
				}
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if _, err := s.Append(ctx, Event{Kind: "pool.flush"}); err != nil { // takes the submitted along
		t.Fatal(err)
	}
	evs, err := s.Events(EventQuery{Kind: "pool.test"})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != writers*each {
		t.Fatalf("%d events stored, want %d", len(evs), writers*each)
	}
	seen := map[string]bool{}
	for _, ev := range evs {
		var d struct{ Call, Pad string }
		if err := json.Unmarshal(ev.Data, &d); err != nil || d.Call != ev.CallID || seen[ev.CallID] {
			t.Fatalf("event %d (call %s) holds %s (%v)", ev.Seq, ev.CallID, ev.Data, err)
		}
		var g, i int
		fmt.Sscanf(ev.CallID, "g%d-%d", &g, &i)
		if len(d.Pad) != (g*each+i)%97 {
			t.Fatalf("event %d (call %s) has a pad of %d bytes", ev.Seq, ev.CallID, len(d.Pad))
		}
		seen[ev.CallID] = true
	}
}

// TestCommitKeepsEventBytesUntilItEnds commits a group whose last write
// encodes other events inside the same transaction, as a caller on
// another goroutine might while the writer commits: those encodings take
// pooled bytes, so bytes given back before the transaction ended would be
// overwritten before bbolt writes them.
func TestCommitKeepsEventBytesUntilItEnds(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	var group []*appendReq
	for i := range 4 {
		req, err := encodePooled(Event{Kind: "pool.test", CallID: fmt.Sprint(i), Data: json.RawMessage(fmt.Sprintf(`{"call":"%d"}`, i))})
		if err != nil {
			t.Fatal(err)
		}
		group = append(group, req)
	}
	group = append(group, &appendReq{done: make(chan struct{}), apply: func(*bolt.Tx) error {
		for range 8 {
			if _, err := encodePooled(Event{Kind: "other", CallID: "zzzz", Data: json.RawMessage(`{"call":"other"}`)}); err != nil {
				return err
			}
		}
		return nil
	}})
	s.commit(group)
	evs, err := s.Events(EventQuery{Kind: "pool.test"})
	if err != nil || len(evs) != 4 {
		t.Fatalf("%d events, %v", len(evs), err)
	}
	for _, ev := range evs {
		if want := fmt.Sprintf(`{"call":"%s"}`, ev.CallID); string(ev.Data) != want {
			t.Fatalf("event %d holds %s, want %s", ev.Seq, ev.Data, want)
		}
	}
}

// pooledReq is an event encoded into pooled bytes, as Append and Submit
// make it.
func pooledReq(t *testing.T, call string) *appendReq {
	t.Helper()
	req, err := encodePooled(Event{Kind: "pool.test", CallID: call, Data: json.RawMessage(`{}`)})
	if err != nil {
		t.Fatal(err)
	}
	if req.pooled == nil {
		t.Fatal("encodePooled gave no pooled bytes")
	}
	return req
}

// TestUnqueuedEventGivesItsBytesBack: an event that never reached the
// writer (its context ended, or the store closed) gives its pooled bytes
// back at once, by Append's way (enqueue) and Submit's (submitReq), timed
// or riding: nothing else will.
func TestUnqueuedEventGivesItsBytesBack(t *testing.T) {
	s, _ := openTemp(t)
	ended, cancel := context.WithCancel(context.Background())
	cancel()
	req := pooledReq(t, "ended")
	if err := s.enqueue(ended, req); err == nil {
		t.Fatal("an ended context queued the event")
	}
	if req.pooled != nil || req.value != nil {
		t.Fatal("an event its context kept out of the queue kept its pooled bytes")
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	for name, queue := range map[string]func(*appendReq) error{
		"enqueue":         func(r *appendReq) error { return s.enqueue(context.Background(), r) },
		"submitReq timed": func(r *appendReq) error { return s.submitReq(context.Background(), r, true) },
		"submitReq ride":  func(r *appendReq) error { return s.submitReq(context.Background(), r, false) },
	} {
		req := pooledReq(t, name)
		if err := queue(req); !errors.Is(err, ErrClosed) {
			t.Fatalf("%s on a closed store: %v, want ErrClosed", name, err)
		}
		if req.pooled != nil || req.value != nil {
			t.Fatalf("%s on a closed store: the event kept its pooled bytes", name)
		}
	}
}

// TestQueuedEventKeepsItsBytesUntilCommitted: a queued event holds its
// pooled bytes while it waits (the writer busy in another commit, or a
// ride waiting for the next one) and gives them back once its commit
// has ended.
func TestQueuedEventKeepsItsBytesUntilCommitted(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	ctx := context.Background()
	entered, release := make(chan struct{}), make(chan struct{})
	var releaseOnce sync.Once
	free := func() { releaseOnce.Do(func() { close(release) }) }
	defer free() // before Close, which waits for the writer
	busy := &appendReq{done: make(chan struct{}), apply: func(*bolt.Tx) error {
		close(entered)
		<-release
		return nil
	}}
	if err := s.enqueue(ctx, busy); err != nil {
		t.Fatal(err)
	}
	<-entered
	appended := pooledReq(t, "appended")
	if err := s.enqueue(ctx, appended); err != nil {
		t.Fatal(err)
	}
	ride := pooledReq(t, "ride")
	if err := s.submitReq(ctx, ride, false); err != nil {
		t.Fatal(err)
	}
	if appended.pooled == nil || ride.pooled == nil {
		t.Fatalf("queued events gave their bytes back before their commit (appended %v, ride %v)", appended.pooled == nil, ride.pooled == nil)
	}
	free()
	<-busy.done
	<-appended.done
	<-ride.done
	if appended.err != nil || ride.err != nil {
		t.Fatal(appended.err, ride.err)
	}
	if appended.pooled != nil || ride.pooled != nil {
		t.Fatal("committed events kept their pooled bytes")
	}
	evs, err := s.Events(EventQuery{Kind: "pool.test"})
	if err != nil || len(evs) != 2 {
		t.Fatalf("%d events stored, want 2 (%v)", len(evs), err)
	}
}
