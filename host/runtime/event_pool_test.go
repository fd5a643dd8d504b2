package runtime

import (
	"context"
	"encoding/json"
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
