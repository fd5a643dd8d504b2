package toolhost

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/policy"
	"demiurge.dev/host/runtime"
	"demiurge.dev/host/search"
)

// The conversation tools through the whole path: the real coding plugin
// process, a real store file, messages written by runtime.AppendMessages.

func openConv(t *testing.T, state string, opts Options) *Host {
	t.Helper()
	opts.StateDir, opts.BuiltinPluginDir = state, builtinDir
	if opts.Workspace == "" {
		opts.Workspace = t.TempDir()
	}
	h, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}

func call(t *testing.T, turn *dispatch.Turn, tool, args string) dispatch.Outcome {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	return turn.Call(ctx, dispatch.ToolCall{ID: "c_" + tool, Name: tool, Args: []byte(args)})
}

func newTurn(t *testing.T, h *Host) *dispatch.Turn {
	t.Helper()
	turn, err := h.NewTurn(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return turn
}

func TestTodoDurableAcrossReopen(t *testing.T) {
	state := t.TempDir()
	h := openConv(t, state, Options{})
	turn := newTurn(t, h)
	id := h.Session().ID()
	write := `{"todos":[{"id":"t1","content":"write the index","status":"completed"},{"id":"t2","content":"bench it","status":"in_progress"},{"id":"t3","content":"report","status":"pending"}]}`
	if out := call(t, turn, "todo", write); !out.OK() {
		t.Fatalf("write: %s: %s", out.Status, out.Views.Model.String())
	}
	// A list that breaks a rule is refused and the stored one stays.
	bad := `{"todos":[{"id":"a","content":"x","status":"in_progress"},{"id":"b","content":"y","status":"in_progress"}]}`
	if out := call(t, turn, "todo", bad); out.Status != dispatch.StatusToolError || !strings.Contains(out.Views.Model.String(), "at most one item is in progress") {
		t.Fatalf("two in progress: %s: %s", out.Status, out.Views.Model.String())
	}
	h.Close()

	h2 := openConv(t, state, Options{})
	if _, err := h2.ResumeSession(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	out := call(t, newTurn(t, h2), "todo", `{}`)
	for _, want := range []string{"[x] t1: write the index", "[>] t2: bench it", "[ ] t3: report", "(1 of 3 completed)"} {
		if !strings.Contains(out.Views.Model.String(), want) {
			t.Fatalf("after reopen the list lacks %q:\n%s", want, out.Views.Model.String())
		}
	}
	// Another session has a list of its own.
	h2.NewSession()
	if out := call(t, newTurn(t, h2), "todo", `{}`); !strings.Contains(out.Views.Model.String(), "The task list is empty") {
		t.Fatalf("a new session sees another's list:\n%s", out.Views.Model.String())
	}
}

func TestTodoBounds(t *testing.T) {
	h := openConv(t, t.TempDir(), Options{})
	turn := newTurn(t, h)
	items := make([]string, 51)
	for i := range items {
		items[i] = fmt.Sprintf(`{"id":"i%d","content":"step","status":"pending"}`, i)
	}
	tests := []struct {
		name, args string
		status     dispatch.Status
		want       string
	}{
		{"51 items", `{"todos":[` + strings.Join(items, ",") + `]}`, dispatch.StatusInvalidArguments, "todos"},
		{"unknown status", `{"todos":[{"id":"a","content":"x","status":"done"}]}`, dispatch.StatusInvalidArguments, "status"},
		{"duplicate id", `{"todos":[{"id":"a","content":"x","status":"pending"},{"id":"a","content":"y","status":"pending"}]}`, dispatch.StatusToolError, "used twice"},
		{"blank content", `{"todos":[{"id":"a","content":"   ","status":"pending"}]}`, dispatch.StatusToolError, "content must be non-empty"},
		{"bad id", `{"todos":[{"id":"../x","content":"x","status":"pending"}]}`, dispatch.StatusInvalidArguments, "id"},
		{"content too long", `{"todos":[{"id":"a","content":"` + strings.Repeat("é", 501) + `","status":"pending"}]}`, dispatch.StatusInvalidArguments, "content"},
		{"clear", `{"todos":[]}`, dispatch.StatusOK, "The task list is empty"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := call(t, turn, "todo", tt.args)
			if out.Status != tt.status || !strings.Contains(out.Views.Model.String(), tt.want) {
				t.Fatalf("%s: %s, want %s containing %q", tt.name, out.Status, tt.status, tt.want)
			}
		})
	}
}

func TestClarify(t *testing.T) {
	h := openConv(t, t.TempDir(), Options{})
	t.Run("answered by the front end", func(t *testing.T) {
		turn := newTurn(t, h)
		var got struct {
			q       string
			choices []string
		}
		turn.Clarify = func(ctx context.Context, q string, choices []string) (string, bool, error) {
			got.q, got.choices = q, choices
			return "postgres", true, nil
		}
		out := call(t, turn, "clarify", `{"question":"Which database?","choices":["sqlite","postgres"]}`)
		if !out.OK() || !strings.Contains(out.Views.Model.String(), "The operator answered: postgres") {
			t.Fatalf("%s: %s", out.Status, out.Views.Model.String())
		}
		if got.q != "Which database?" || strings.Join(got.choices, "|") != "sqlite|postgres" {
			t.Fatalf("the hook was asked %q %q", got.q, got.choices)
		}
	})
	for name, hook := range map[string]func(context.Context, string, []string) (string, bool, error){
		"headless (nil hook)": nil,
		"operator declines":   func(context.Context, string, []string) (string, bool, error) { return "", false, nil },
	} {
		t.Run(name, func(t *testing.T) {
			turn := newTurn(t, h)
			turn.Clarify = hook
			out := call(t, turn, "clarify", `{"question":"Ship it?"}`)
			// Not an error: the model goes on.
			if !out.OK() || !strings.Contains(out.Views.Model.String(), "No answer") || !strings.Contains(out.Views.Model.String(), "best judgement") {
				t.Fatalf("%s: %s", out.Status, out.Views.Model.String())
			}
		})
	}
	bad := []struct{ name, args string }{
		{"nine choices", `{"question":"q","choices":["1","2","3","4","5","6","7","8","9"]}`},
		{"one choice", `{"question":"q","choices":["only"]}`},
		{"duplicate choices", `{"question":"q","choices":["a","a"]}`},
		{"empty choice", `{"question":"q","choices":["a",""]}`},
		{"long choice", `{"question":"q","choices":["a","` + strings.Repeat("x", 201) + `"]}`},
		{"empty question", `{"question":"  "}`},
		{"long question", `{"question":"` + strings.Repeat("x", 2001) + `"}`},
	}
	for _, tt := range bad {
		t.Run(tt.name, func(t *testing.T) {
			turn := newTurn(t, h)
			asked := false
			turn.Clarify = func(context.Context, string, []string) (string, bool, error) { asked = true; return "x", true, nil }
			out := call(t, turn, "clarify", tt.args)
			if out.OK() || asked {
				t.Fatalf("%s was accepted (asked=%v): %s", tt.name, asked, out.Views.Model.String())
			}
		})
	}
}

// appendMsgs writes messages of session through runtime.AppendMessages,
// as the turn loop does.
func appendMsgs(t *testing.T, store *runtime.Store, session string, texts ...string) {
	t.Helper()
	msgs := make([]runtime.MessageRecord, len(texts))
	for i, s := range texts {
		role := "user"
		if i%2 == 1 {
			role = "assistant"
		}
		msgs[i] = runtime.MessageRecord{Role: role, Text: s}
	}
	if _, err := store.AppendMessages(context.Background(), session, msgs); err != nil {
		t.Fatal(err)
	}
}

type searchResult struct {
	Mode     string `json:"mode"`
	Sessions []struct {
		SessionID string `json:"conversation_id"`
		Messages  uint64 `json:"messages"`
		Preview   string `json:"preview"`
	} `json:"conversations"`
	Hits []struct {
		SessionID string `json:"conversation_id"`
		Seq       uint64 `json:"seq"`
		Snippet   string `json:"snippet"`
	} `json:"hits"`
	Total uint64 `json:"total"`
}

func structured(t *testing.T, out dispatch.Outcome) searchResult {
	t.Helper()
	var r searchResult
	raw, err := json.Marshal(out.Views.Record()["structured"])
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(raw, &r); err != nil {
		t.Fatalf("structured %s: %v", raw, err)
	}
	return r
}

func sessionsOf(r searchResult) map[string]bool {
	out := map[string]bool{}
	for _, h := range r.Hits {
		out[h.SessionID] = true
	}
	for _, s := range r.Sessions {
		out[s.SessionID] = true
	}
	return out
}

// history sets up a store with three sessions that all mention "parser":
// the current one, another of the same principal, and one of another
// principal; plus messages of a session nobody owns.
type historyFixture struct {
	h                     *Host
	current, mine, theirs string
}

func newHistory(t *testing.T, opts Options) historyFixture {
	state := t.TempDir()
	h := openConv(t, state, opts)
	store, err := h.Store()
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	principal := h.Authority().Principal
	f := historyFixture{h: h, mine: "ses_mine_earlier", theirs: "ses_someone_else"}
	for _, rec := range []runtime.SessionRecord{{ID: f.mine, Principal: principal}, {ID: f.theirs, Principal: "channel:chat:bob"}} {
		if err := store.RecordSession(ctx, rec); err != nil {
			t.Fatal(err)
		}
	}
	appendMsgs(t, store, f.mine, "the parser in earlier.go drops comments", "fixed the parser")
	appendMsgs(t, store, f.theirs, "bob's parser notes: password hunter2", "ok")
	appendMsgs(t, store, "ses_orphan", "orphan parser message")
	newTurn(t, h) // records the current session
	f.current = h.Session().ID()
	appendMsgs(t, store, f.current, "why does the parser fail on unicode input?", "the tokenizer splits runes")
	return f
}

func TestSessionSearchOwnSession(t *testing.T) {
	f := newHistory(t, Options{Rules: []string{"allow:session_search"}})
	turn := newTurn(t, f.h)
	tests := []struct {
		name, args string
		want       map[string]bool
		snippet    string
	}{
		{"full text", `{"query":"parser"}`, map[string]bool{f.current: true}, "[[parser]]"},
		{"query syntax is not parsed", `{"query":"session:` + f.theirs + ` parser"}`, map[string]bool{f.current: true}, "[[parser]]"},
		{"browse", `{}`, map[string]bool{f.current: true}, ""},
		{"explicit own session", `{"conversation_id":"` + f.current + `"}`, map[string]bool{f.current: true}, "tokenizer"},
		{"explicit own session, query", `{"conversation_id":"` + f.current + `","query":"unicode"}`, map[string]bool{f.current: true}, "[[unicode]]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			out := call(t, turn, "session_search", tt.args)
			if !out.OK() {
				t.Fatalf("%s: %s", out.Status, out.Views.Model.String())
			}
			r := structured(t, out)
			if got := sessionsOf(r); fmt.Sprint(got) != fmt.Sprint(tt.want) {
				t.Fatalf("read sessions %v, want %v:\n%s", got, tt.want, out.Views.Model.String())
			}
			if !strings.Contains(out.Views.Model.String(), tt.snippet) {
				t.Fatalf("no %q in:\n%s", tt.snippet, out.Views.Model.String())
			}
		})
	}
}

// Missing, another principal's, an unowned and (without the operator
// scope) one's own other session all give the same error.
func TestSessionSearchSameErrorForMissingAndForeign(t *testing.T) {
	f := newHistory(t, Options{Rules: []string{"allow:session_search"}})
	turn := newTurn(t, f.h)
	var texts []string
	for _, id := range []string{"ses_does_not_exist", f.theirs, "ses_orphan", f.mine} {
		for _, args := range []string{`{"conversation_id":"%s"}`, `{"conversation_id":"%s","query":"parser"}`} {
			out := call(t, turn, "session_search", fmt.Sprintf(args, id))
			if out.Status != dispatch.StatusToolError {
				t.Fatalf("%s: %s: %s", id, out.Status, out.Views.Model.String())
			}
			texts = append(texts, strings.ReplaceAll(out.Views.Model.String(), id, "ID"))
		}
	}
	for _, s := range texts[1:] {
		if s != texts[0] {
			t.Fatalf("errors differ:\n%q\n%q", texts[0], s)
		}
	}
	if strings.Contains(strings.Join(texts, ""), "hunter2") {
		t.Fatal("another principal's history leaked")
	}
}

func TestSessionSearchOperatorScope(t *testing.T) {
	f := newHistory(t, Options{Rules: []string{"allow:session_search"}})
	turn := newTurn(t, f.h)
	// No reason, no scope.
	out := call(t, turn, "session_search", `{"scope":"operator","query":"parser"}`)
	if out.OK() || !strings.Contains(out.Views.Model.String(), "needs a reason") {
		t.Fatalf("operator scope without a reason: %s: %s", out.Status, out.Views.Model.String())
	}
	out = call(t, turn, "session_search", `{"scope":"operator","reason":"find where the parser bug was fixed","query":"parser"}`)
	if !out.OK() {
		t.Fatalf("%s: %s", out.Status, out.Views.Model.String())
	}
	got := sessionsOf(structured(t, out))
	if want := map[string]bool{f.current: true, f.mine: true}; fmt.Sprint(got) != fmt.Sprint(want) {
		t.Fatalf("operator scope read %v, want %v (never another principal's or an unowned session)", got, want)
	}
	out = call(t, turn, "session_search", `{"scope":"operator","reason":"list them"}`)
	if got := sessionsOf(structured(t, out)); !got[f.mine] || !got[f.current] || got[f.theirs] || got["ses_orphan"] {
		t.Fatalf("operator browse listed %v", got)
	}
	out = call(t, turn, "session_search", `{"scope":"operator","reason":"r","conversation_id":"`+f.theirs+`"}`)
	if out.Status != dispatch.StatusToolError || !strings.Contains(out.Views.Model.String(), "no such session") {
		t.Fatalf("another principal's session under operator scope: %s: %s", out.Status, out.Views.Model.String())
	}
	// Each operator scope is in the audit, with its reason, before the read.
	store, _ := f.h.Store()
	evs, err := store.Events(runtime.EventQuery{Kind: search.AuditOperatorScope})
	if err != nil {
		t.Fatal(err)
	}
	if len(evs) != 3 || !strings.Contains(string(evs[0].Data), "find where the parser bug was fixed") || evs[0].Session != f.current {
		t.Fatalf("audit events: %+v", evs)
	}
}

// The operator scope is asked about as an operator-only approval, never
// covered by a session allow.
func TestSessionSearchOperatorScopeAsksTheOperator(t *testing.T) {
	rec := &recorder{}
	f := newHistory(t, Options{Approver: rec})
	turn := newTurn(t, f.h)
	call(t, turn, "session_search", `{"query":"parser"}`)
	call(t, turn, "session_search", `{"scope":"operator","reason":"because","query":"parser"}`)
	rec.mu.Lock()
	defer rec.mu.Unlock()
	if len(rec.reqs) != 2 {
		t.Fatalf("asked %d times, want 2", len(rec.reqs))
	}
	if r := rec.reqs[0]; r.OperatorOnly || r.Risk.String() != "medium" {
		t.Fatalf("an own-session search: %+v", r)
	}
	if r := rec.reqs[1]; !r.OperatorOnly || r.SessionAllowable || !strings.Contains(r.PreviewFunc(), "because") {
		t.Fatalf("an operator scope must be an operator-only, once-only approval showing its reason: %+v", r)
	}
}

func TestSessionSearchChannelHasNoOperatorScope(t *testing.T) {
	f := newHistory(t, Options{Principal: "channel:chat:alice", Rules: []string{"allow:session_search"}})
	out := call(t, newTurn(t, f.h), "session_search", `{"scope":"operator","reason":"r","query":"parser"}`)
	if out.Status != dispatch.StatusToolError || !strings.Contains(out.Views.Model.String(), "local operator") {
		t.Fatalf("%s: %s", out.Status, out.Views.Model.String())
	}
}

func TestSessionSearchNeedsApprovalAndCapability(t *testing.T) {
	t.Run("denied", func(t *testing.T) {
		f := newHistory(t, Options{}) // nobody can answer: deny
		out := call(t, newTurn(t, f.h), "session_search", `{"query":"parser"}`)
		if out.Status != dispatch.StatusDenied || strings.Contains(out.Views.Model.String(), "unicode") {
			t.Fatalf("%s: %s", out.Status, out.Views.Model.String())
		}
	})
	t.Run("no session.read", func(t *testing.T) {
		f := newHistory(t, Options{Rules: []string{"allow:session_search"}})
		turn := newTurn(t, f.h)
		var kept []string
		for _, c := range turn.Authority.Capabilities.List() {
			if c != "session.read" {
				kept = append(kept, c)
			}
		}
		caps, err := policy.NewCapabilitySet(kept)
		if err != nil {
			t.Fatal(err)
		}
		turn.Authority.Capabilities = caps
		out := call(t, turn, "session_search", `{"query":"parser"}`)
		if out.Status != dispatch.StatusCapabilityDenied {
			t.Fatalf("%s: %s", out.Status, out.Views.Model.String())
		}
	})
}

// Messages stored while the index was closed (or after it was lost) are
// found once it opens again; messages appended while it is open are found
// at once.
func TestSessionIndexCatchesUp(t *testing.T) {
	state := t.TempDir()
	h := openConv(t, state, Options{Rules: []string{"allow:session_search"}})
	newTurn(t, h)
	id := h.Session().ID()
	store, _ := h.Store()
	appendMsgs(t, store, id, "first: zebra")
	h.Close()

	// The index is closed: these are written to the store alone.
	st, err := runtime.Open(state + "/demiurge.db")
	if err != nil {
		t.Fatal(err)
	}
	appendMsgs(t, st, id, "second: giraffe")
	st.Close()

	h2 := openConv(t, state, Options{Rules: []string{"allow:session_search"}})
	if _, err := h2.ResumeSession(context.Background(), id); err != nil {
		t.Fatal(err)
	}
	turn := newTurn(t, h2)
	store2, _ := h2.Store()
	appendMsgs(t, store2, id, "third: okapi")
	for _, word := range []string{"zebra", "giraffe", "okapi"} {
		out := call(t, turn, "session_search", `{"query":"`+word+`"}`)
		if r := structured(t, out); len(r.Hits) != 1 || !strings.Contains(r.Hits[0].Snippet, "[["+word+"]]") {
			t.Fatalf("%s: %s", word, out.Views.Model.String())
		}
	}
}

// An installed plugin reaches none of the conversation services with its
// own, live invocation.
func TestConversationServicesRefuseOtherPlugins(t *testing.T) {
	state := t.TempDir()
	install(t, state, "eavesdropper")
	f := openConv(t, state, Options{Rules: []string{"allow:eavesdrop"}})
	turn := newTurn(t, f)
	var mu sync.Mutex
	asked := false
	turn.Clarify = func(context.Context, string, []string) (string, bool, error) {
		mu.Lock()
		asked = true
		mu.Unlock()
		return "hunter2", true, nil
	}
	out := call(t, turn, "eavesdrop", `{}`)
	want := "search=PermissionDenied todo_read=PermissionDenied todo_write=PermissionDenied clarify=PermissionDenied"
	if !out.OK() || out.Views.Model.String() != want {
		t.Fatalf("%s: %q, want %q", out.Status, out.Views.Model.String(), want)
	}
	if asked {
		t.Fatal("a third-party plugin asked the operator")
	}
}
