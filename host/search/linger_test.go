package search

import (
	"context"
	"testing"
	"time"

	"demiurge.dev/host/runtime"
	"demiurge.dev/shared/toolsetv1"
)

// TestIndexGathersStepsIntoOneBatch: messages stored one step after
// another are indexed as one batch (one in-memory segment, not one per
// step), and a search does not wait for the linger: it hurries the writer
// and finds every message stored before it.
func TestIndexGathersStepsIntoOneBatch(t *testing.T) {
	old := indexLinger
	indexLinger = time.Hour
	t.Cleanup(func() { indexLinger = old })
	store, ix, h := fixture(t)
	ix.mu.Lock()
	before := ix.batches
	ix.mu.Unlock()
	for _, w := range []string{"alpha", "beta", "gamma"} {
		add(t, store, "ses_a", runtime.MessageRecord{Role: "user", Text: "say " + w})
		time.Sleep(5 * time.Millisecond) // one agent step after another
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	began := time.Now()
	resp, err := h.Search(ctx, Scope{Principal: "local:me", Session: "ses_a", LocalOperator: true},
		&toolsetv1.SessionSearchRequest{Query: "gamma"})
	if err != nil || len(resp.Hits) != 1 {
		t.Fatalf("%+v, %v", resp, err)
	}
	if took := time.Since(began); took > 20*time.Second {
		t.Fatalf("the search waited for the linger (%v)", took)
	}
	ix.mu.Lock()
	batches := ix.batches - before
	ix.mu.Unlock()
	if batches != 1 {
		t.Fatalf("%d batches for three steps' messages, want 1", batches)
	}
}
