package toolhost

import (
	"context"
	"path/filepath"
	"sync"

	"demiurge.dev/catalog"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/search"
	"demiurge.dev/shared/toolsetv1"
)

// hostHistory is the session history index, opened on the first turn
// whose catalog has session_search: from then on every message the store
// appends is indexed as it is written, and opening it indexes what was
// stored while it was closed.
type hostHistory struct {
	once  sync.Once
	mu    sync.Mutex
	index *search.Index
	err   error
}

// SessionIndexDir is where the session history index lives.
func SessionIndexDir(stateDir string) string {
	return filepath.Join(stateDir, "index", "sessions.bleve")
}

// SessionIndex opens the session history index on first use.
func (h *Host) SessionIndex() (*search.Index, error) {
	h.history.once.Do(func() {
		store, err := h.Store()
		if err != nil {
			h.history.err = err
			return
		}
		ix, err := search.Open(SessionIndexDir(h.StateDir), store)
		h.history.mu.Lock()
		h.history.index, h.history.err = ix, err
		h.history.mu.Unlock()
	})
	return h.history.index, h.history.err
}

// historyFor is the turn's session_search service, or nil when the
// catalog has no built-in session_search (then nothing is opened).
func (h *Host) historyFor(cat *catalog.Catalog) (*historySearcher, error) {
	e, ok := cat.Lookup("session_search")
	if !ok || e.Spec.Provenance.Kind != catalog.SourceBuiltin || e.Spec.Provenance.Toolset != "coding" {
		return nil, nil
	}
	store, err := h.Store()
	if err != nil {
		return nil, err
	}
	ix, err := h.SessionIndex()
	if err != nil {
		// The other tools of the turn work on; session_search says why
		// it cannot.
		return &historySearcher{err: err}, nil
	}
	return &historySearcher{h: &search.History{Store: store, Index: ix}}, nil
}

// historySearcher is search.History as dispatch asks for it.
// With err set, the index could not be opened and every search says so.
type historySearcher struct {
	h   *search.History
	err error
}

func (s *historySearcher) Search(ctx context.Context, sc dispatch.HistoryScope, req *toolsetv1.SessionSearchRequest) (*toolsetv1.SessionSearchResponse, error) {
	if s.err != nil {
		return nil, s.err
	}
	return s.h.Search(ctx, search.Scope(sc), req)
}

func (h *Host) closeHistory() {
	h.history.mu.Lock()
	ix := h.history.index
	h.history.mu.Unlock()
	if ix != nil {
		_ = ix.Close()
	}
}
