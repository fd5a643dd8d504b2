package search

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/plugins"
	"demiurge.dev/host/runtime"
	"demiurge.dev/shared/toolsetv1"
)

// fixture is a real store file and index with the sessions of two
// principals.
func fixture(t testing.TB) (*runtime.Store, *Index, *History) {
	t.Helper()
	dir := t.(interface{ TempDir() string }).TempDir()
	store, err := runtime.Open(filepath.Join(dir, "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	ix, err := Open(filepath.Join(dir, "index"), store)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ix.Close(); store.Close() })
	ctx := context.Background()
	for _, r := range []runtime.SessionRecord{{ID: "ses_a", Principal: "local:me"}, {ID: "ses_b", Principal: "local:me"}, {ID: "ses_x", Principal: "channel:x"}} {
		if err := store.RecordSession(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	return store, ix, &History{Store: store, Index: ix}
}

func add(t testing.TB, store *runtime.Store, session string, msgs ...runtime.MessageRecord) {
	t.Helper()
	if _, err := store.AppendMessages(context.Background(), session, msgs); err != nil {
		t.Fatal(err)
	}
}

func TestSearchFindsAppendedAtOnce(t *testing.T) {
	store, _, h := fixture(t)
	sc := Scope{Principal: "local:me", Session: "ses_a", LocalOperator: true}
	ctx := context.Background()
	for i := range 20 {
		// Each append is searched for right after it: a search waits for
		// everything appended before it.
		word := fmt.Sprintf("word%d", i)
		add(t, store, "ses_a", runtime.MessageRecord{Role: "user", Text: "say " + word})
		resp, err := h.Search(ctx, sc, &toolsetv1.SessionSearchRequest{Query: word})
		if err != nil || len(resp.Hits) != 1 || resp.Hits[0].Seq != uint64(i+1) {
			t.Fatalf("%s: %+v, %v", word, resp, err)
		}
	}
}

func TestSearchIndexesToolViews(t *testing.T) {
	store, _, h := fixture(t)
	add(t, store, "ses_a",
		runtime.MessageRecord{Role: "assistant", ToolCalls: []byte(`[{"id":"c1","name":"terminal","arguments":"{\"command\":\"go test ./lexer\"}"}]`)},
		runtime.MessageRecord{Role: "tool", ToolResults: []byte(`[{"call_id":"c1","content":"FAIL lexer_test.go:42 unterminated heredoc"}]`)})
	resp, err := h.Search(context.Background(), Scope{Principal: "local:me", Session: "ses_a"}, &toolsetv1.SessionSearchRequest{Query: "heredoc"})
	if err != nil || len(resp.Hits) != 1 || resp.Hits[0].Role != "tool" || !strings.Contains(resp.Hits[0].Snippet, "[[heredoc]]") {
		t.Fatalf("%+v, %v", resp, err)
	}
}

func TestSearchRequestBounds(t *testing.T) {
	_, _, h := fixture(t)
	sc := Scope{Principal: "local:me", Session: "ses_a", LocalOperator: true}
	tests := []struct {
		name string
		req  *toolsetv1.SessionSearchRequest
		want error
	}{
		{"long query", &toolsetv1.SessionSearchRequest{Query: strings.Repeat("q", MaxQuery+1)}, plugins.ErrInvalid},
		{"invalid utf-8", &toolsetv1.SessionSearchRequest{Query: "\xff"}, plugins.ErrInvalid},
		{"limit", &toolsetv1.SessionSearchRequest{Limit: MaxLimit + 1}, plugins.ErrInvalid},
		{"long id", &toolsetv1.SessionSearchRequest{SessionId: strings.Repeat("s", MaxSessionID+1)}, plugins.ErrInvalid},
		{"operator without reason", &toolsetv1.SessionSearchRequest{OperatorScope: true, Reason: "  "}, plugins.ErrInvalid},
		{"reason without operator", &toolsetv1.SessionSearchRequest{Reason: "why"}, plugins.ErrInvalid},
		{"long reason", &toolsetv1.SessionSearchRequest{OperatorScope: true, Reason: strings.Repeat("r", MaxReason+1)}, plugins.ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := h.Search(context.Background(), sc, tt.req); !errors.Is(err, tt.want) {
				t.Fatalf("err = %v, want %v", err, tt.want)
			}
		})
	}
	if _, err := h.Search(context.Background(), Scope{Principal: "channel:x", Session: "ses_x"}, &toolsetv1.SessionSearchRequest{OperatorScope: true, Reason: "r"}); !errors.Is(err, plugins.ErrNotPermitted) {
		t.Fatalf("a channel's operator scope: %v", err)
	}
	if _, err := h.Search(context.Background(), Scope{Principal: "local:me"}, &toolsetv1.SessionSearchRequest{}); !errors.Is(err, plugins.ErrNotPermitted) {
		t.Fatalf("no bound session: %v", err)
	}
}

// Results are bounded and say so.
func TestSearchResultsBounded(t *testing.T) {
	store, _, h := fixture(t)
	msgs := make([]runtime.MessageRecord, 120)
	for i := range msgs {
		msgs[i] = runtime.MessageRecord{Role: "user", Text: strings.Repeat("filler ", 200) + "needle " + strings.Repeat("tail ", 200)}
	}
	add(t, store, "ses_a", msgs...)
	sc := Scope{Principal: "local:me", Session: "ses_a"}
	for _, tt := range []struct {
		req  *toolsetv1.SessionSearchRequest
		hits int
	}{
		{&toolsetv1.SessionSearchRequest{Query: "needle"}, DefaultLimit},
		{&toolsetv1.SessionSearchRequest{Query: "needle", Limit: MaxLimit}, MaxLimit},
		{&toolsetv1.SessionSearchRequest{SessionId: "ses_a"}, DefaultLimit},
	} {
		resp, err := h.Search(context.Background(), sc, tt.req)
		if err != nil || len(resp.Hits) != tt.hits || resp.Total != 120 || !resp.Truncated {
			t.Fatalf("%v: %d hits of %d (truncated %v), %v", tt.req, len(resp.GetHits()), resp.GetTotal(), resp.GetTruncated(), err)
		}
		for _, hit := range resp.Hits {
			if n := len([]rune(hit.Snippet)); n > SnippetChars+8 {
				t.Fatalf("snippet of %d characters", n)
			}
		}
		if tt.req.Query != "" && !strings.Contains(resp.Hits[0].Snippet, "[[needle]]") {
			t.Fatalf("snippet misses the match: %q", resp.Hits[0].Snippet)
		}
	}
}

func TestSnippet(t *testing.T) {
	_, _, h := fixture(t)
	store := h.Store
	add(t, store, "ses_a", runtime.MessageRecord{Role: "user", Text: "début — the naïve parser fails, the parser really fails"})
	resp, err := h.Search(context.Background(), Scope{Principal: "local:me", Session: "ses_a"}, &toolsetv1.SessionSearchRequest{Query: "parser"})
	if err != nil || len(resp.Hits) != 1 {
		t.Fatal(resp, err)
	}
	if want := "début — the naïve [[parser]] fails, the [[parser]] really fails"; resp.Hits[0].Snippet != want {
		t.Fatalf("snippet %q, want %q", resp.Hits[0].Snippet, want)
	}
}

// A message appended while the index was closed is indexed when it opens.
func TestIndexCatchUp(t *testing.T) {
	dir := t.TempDir()
	store, err := runtime.Open(filepath.Join(dir, "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if err := store.RecordSession(context.Background(), runtime.SessionRecord{ID: "ses_a", Principal: "p"}); err != nil {
		t.Fatal(err)
	}
	add(t, store, "ses_a", runtime.MessageRecord{Role: "user", Text: "before any index: aardvark"})
	ix, err := Open(filepath.Join(dir, "index"), store)
	if err != nil {
		t.Fatal(err)
	}
	h := &History{Store: store, Index: ix}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	for _, w := range []string{"aardvark"} {
		if resp, err := h.Search(ctx, Scope{Principal: "p", Session: "ses_a"}, &toolsetv1.SessionSearchRequest{Query: w}); err != nil || len(resp.Hits) != 1 {
			t.Fatalf("%s: %+v %v", w, resp, err)
		}
	}
	ix.Close()
	add(t, store, "ses_a", runtime.MessageRecord{Role: "user", Text: "while closed: bandicoot"})
	ix, err = Open(filepath.Join(dir, "index"), store)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	h.Index = ix
	for _, w := range []string{"aardvark", "bandicoot"} {
		if resp, err := h.Search(ctx, Scope{Principal: "p", Session: "ses_a"}, &toolsetv1.SessionSearchRequest{Query: w}); err != nil || len(resp.Hits) != 1 {
			t.Fatalf("%s after reopen: %+v %v", w, resp, err)
		}
	}
}

// An index that does not open (a torn write) is made again from the
// store: search still finds everything.
func TestIndexRebuiltWhenBroken(t *testing.T) {
	dir := t.TempDir()
	store, err := runtime.Open(filepath.Join(dir, "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer store.Close()
	if err := store.RecordSession(context.Background(), runtime.SessionRecord{ID: "ses_a", Principal: "p"}); err != nil {
		t.Fatal(err)
	}
	add(t, store, "ses_a", runtime.MessageRecord{Role: "user", Text: "capybara"})
	ixDir := filepath.Join(dir, "index")
	if err := os.MkdirAll(ixDir, 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(ixDir, "index_meta.json"), []byte("{torn"), 0o600); err != nil {
		t.Fatal(err)
	}
	ix, err := Open(ixDir, store)
	if err != nil {
		t.Fatal(err)
	}
	defer ix.Close()
	h := &History{Store: store, Index: ix}
	if resp, err := h.Search(context.Background(), Scope{Principal: "p", Session: "ses_a"}, &toolsetv1.SessionSearchRequest{Query: "capybara"}); err != nil || len(resp.Hits) != 1 {
		t.Fatalf("%+v %v", resp, err)
	}
}
