package search

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"

	"demiurge.dev/host/plugins"
	"demiurge.dev/host/runtime"
	"demiurge.dev/shared/toolsetv1"
)

// Bounds of one session_search.
const (
	DefaultLimit = 10
	MaxLimit     = 50
	MaxQuery     = 500
	MaxReason    = 500
	MaxSessionID = 128
	// SnippetChars bounds each hit's snippet and each browse preview.
	SnippetChars = 240
)

// AuditOperatorScope is the event kind of a cross-session read.
const AuditOperatorScope = "session_search.operator_scope"

// Scope is who reads: the calling turn's principal and the session it is
// bound to, and whether that principal is the local operator (who alone
// may ask for an operator scope). Tool and CallID name the call for the
// audit.
type Scope struct {
	Principal     string
	Session       string
	LocalOperator bool
	Tool, CallID  string
}

// History answers session_search over a store and its index.
type History struct {
	Store *runtime.Store
	Index *Index
}

// Search runs one session_search. The caller (dispatch) has checked the
// call's capability and resolved its approval; Search decides what the
// scope may read: the bound session only, or, under an operator scope
// with a reason (audited before anything is read), every session of the
// principal. A session id that is missing and one the scope may not read
// get the same error.
func (h *History) Search(ctx context.Context, sc Scope, req *toolsetv1.SessionSearchRequest) (*toolsetv1.SessionSearchResponse, error) {
	if sc.Principal == "" || sc.Session == "" {
		return nil, fmt.Errorf("%w: session_search needs a principal and a session", plugins.ErrNotPermitted)
	}
	limit, err := checkRequest(req)
	if err != nil {
		return nil, err
	}
	if req.GetOperatorScope() {
		if err := h.auditOperatorScope(ctx, sc, req); err != nil {
			return nil, err
		}
	}
	readable, err := h.readable(sc, req.GetOperatorScope())
	if err != nil {
		return nil, err
	}
	if id := req.GetSessionId(); id != "" {
		i := slices.IndexFunc(readable, func(r runtime.SessionRecord) bool { return r.ID == id })
		if i < 0 {
			return nil, fmt.Errorf("conversation %q: %w you can read (missing, or not yours); browse (no conversation_id) lists the ones you can", short(id, 64), plugins.ErrSessionNotFound)
		}
		readable = readable[i : i+1]
	}
	switch {
	case req.GetQuery() != "":
		return h.fullText(ctx, readable, req.GetQuery(), limit)
	case req.GetSessionId() != "":
		return h.recent(readable[0].ID, limit)
	}
	return h.browse(sc, readable, limit)
}

func checkRequest(req *toolsetv1.SessionSearchRequest) (int, error) {
	q, id, reason := req.GetQuery(), req.GetSessionId(), req.GetReason()
	switch {
	case !utf8.ValidString(q) || !utf8.ValidString(id) || !utf8.ValidString(reason):
		return 0, fmt.Errorf("%w: text must be valid UTF-8", plugins.ErrInvalid)
	case utf8.RuneCountInString(q) > MaxQuery:
		return 0, fmt.Errorf("%w: the query is longer than %d characters", plugins.ErrInvalid, MaxQuery)
	case len(id) > MaxSessionID:
		return 0, fmt.Errorf("%w: the session id is longer than %d bytes", plugins.ErrInvalid, MaxSessionID)
	case req.GetLimit() > MaxLimit:
		return 0, fmt.Errorf("%w: limit is at most %d", plugins.ErrInvalid, MaxLimit)
	case utf8.RuneCountInString(reason) > MaxReason:
		return 0, fmt.Errorf("%w: the reason is longer than %d characters", plugins.ErrInvalid, MaxReason)
	case req.GetOperatorScope() && strings.TrimSpace(reason) == "":
		return 0, fmt.Errorf("%w: an operator scope needs a reason, which is audited", plugins.ErrInvalid)
	case !req.GetOperatorScope() && reason != "":
		return 0, fmt.Errorf("%w: a reason is only for an operator scope", plugins.ErrInvalid)
	}
	if req.GetLimit() == 0 {
		return DefaultLimit, nil
	}
	return int(req.GetLimit()), nil
}

// auditOperatorScope refuses an operator scope to anyone but the local
// operator and records it durably before anything is read.
func (h *History) auditOperatorScope(ctx context.Context, sc Scope, req *toolsetv1.SessionSearchRequest) error {
	if !sc.LocalOperator {
		return fmt.Errorf("%w: an operator scope is for the local operator; this session reads only its own history", plugins.ErrNotPermitted)
	}
	data, err := runtime.MarshalData(map[string]any{
		"principal": sc.Principal, "reason": req.GetReason(), "session_id": req.GetSessionId(),
		"query_chars": utf8.RuneCountInString(req.GetQuery()), "limit": req.GetLimit(),
	})
	if err != nil {
		return err
	}
	if _, err := h.Store.Append(ctx, runtime.Event{
		Time: time.Now().UTC(), Kind: AuditOperatorScope, Session: sc.Session, Tool: sc.Tool, CallID: sc.CallID, Data: data,
	}); err != nil {
		return fmt.Errorf("the operator scope could not be audited, so nothing was read: %w", err)
	}
	return nil
}

// readable are the sessions sc may read, newest first: its bound session,
// or under an operator scope every session its principal owns. A session
// with no owner record is no one's: it is never read here.
func (h *History) readable(sc Scope, operator bool) ([]runtime.SessionRecord, error) {
	if !operator {
		rec, err := h.Store.Session(sc.Principal, sc.Session)
		if errors.Is(err, runtime.ErrNoSession) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		return []runtime.SessionRecord{rec}, nil
	}
	recs, err := h.Store.Sessions(sc.Principal)
	if err != nil {
		return nil, err
	}
	slices.Reverse(recs)
	return recs, nil
}

func (h *History) browse(sc Scope, recs []runtime.SessionRecord, limit int) (*toolsetv1.SessionSearchResponse, error) {
	resp := &toolsetv1.SessionSearchResponse{Mode: "browse", Total: uint64(len(recs)), Truncated: len(recs) > limit}
	for _, r := range recs[:min(len(recs), limit)] {
		n, err := h.Store.MessageCount(r.ID)
		if err != nil {
			return nil, err
		}
		preview, err := h.preview(r.ID)
		if errors.Is(err, runtime.ErrBadRecord) {
			preview, err = UnreadablePreview, nil // its own session's loss only
		}
		if err != nil {
			return nil, err
		}
		resp.Sessions = append(resp.Sessions, &toolsetv1.SessionSummary{
			SessionId: r.ID, Created: stamp(r.Created), Messages: n, Preview: preview, Current: r.ID == sc.Session,
		})
	}
	return resp, nil
}

// UnreadablePreview stands for the preview of a session whose first
// messages hold a bad record.
const UnreadablePreview = "(its first messages cannot be read)"

// preview is a session's first user message, bounded.
func (h *History) preview(session string) (string, error) {
	msgs, err := h.Store.MessagesRange(session, 0, 20)
	if err != nil {
		return "", err
	}
	for _, m := range msgs {
		if m.Role == "user" && m.Text != "" {
			return short(oneLine(m.Text), SnippetChars), nil
		}
	}
	return "", nil
}

// recent are the last limit messages of session.
func (h *History) recent(session string, limit int) (*toolsetv1.SessionSearchResponse, error) {
	n, err := h.Store.MessageCount(session)
	if err != nil {
		return nil, err
	}
	from := uint64(0)
	if n > uint64(limit) {
		from = n - uint64(limit)
	}
	msgs, err := h.Store.MessagesRange(session, from, limit)
	if err != nil {
		return nil, err
	}
	resp := &toolsetv1.SessionSearchResponse{Mode: "session", Total: n, Truncated: n > uint64(len(msgs))}
	for _, m := range msgs {
		resp.Hits = append(resp.Hits, &toolsetv1.SessionHit{
			SessionId: session, Seq: m.Seq, Role: m.Role, Created: stamp(m.Created),
			Snippet: short(oneLine(IndexedText(m)), SnippetChars),
		})
	}
	return resp, nil
}

func (h *History) fullText(ctx context.Context, recs []runtime.SessionRecord, text string, limit int) (*toolsetv1.SessionSearchResponse, error) {
	resp := &toolsetv1.SessionSearchResponse{Mode: "search"}
	if len(recs) == 0 {
		return resp, nil
	}
	if err := h.Index.Flush(ctx); err != nil {
		return nil, err
	}
	// The query is matched against the text field only: never parsed as
	// query syntax, so "session:other" is two words, not a field query.
	match := bleve.NewMatchQuery(text)
	match.SetField("text")
	owned := make([]query.Query, len(recs))
	allowed := make(map[string]bool, len(recs))
	for i, r := range recs {
		t := bleve.NewTermQuery(r.ID)
		t.SetField("session")
		owned[i] = t
		allowed[r.ID] = true
	}
	sr := bleve.NewSearchRequestOptions(bleve.NewConjunctionQuery(match, bleve.NewDisjunctionQuery(owned...)), limit, 0, false)
	sr.Fields = []string{"text", "role", "created"}
	sr.IncludeLocations = true
	res, err := h.Index.idx.SearchInContext(ctx, sr)
	if err != nil {
		return nil, fmt.Errorf("session index: search: %w", err)
	}
	resp.Total = res.Total
	for _, hit := range res.Hits {
		session, seq, ok := parseDocID(hit.ID)
		if !ok || !allowed[session] {
			continue // defence in depth: the query already kept to owned sessions
		}
		body, _ := hit.Fields["text"].(string)
		role, _ := hit.Fields["role"].(string)
		created, _ := hit.Fields["created"].(string)
		resp.Hits = append(resp.Hits, &toolsetv1.SessionHit{
			SessionId: session, Seq: seq, Role: role, Created: created,
			Snippet: snippet(body, hit.Locations["text"], SnippetChars),
		})
	}
	resp.Truncated = resp.Total > uint64(len(resp.Hits))
	return resp, nil
}

func stamp(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(time.RFC3339)
}

// short bounds s to n characters, marking a cut with "…".
func short(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }
