package search

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"
	berrors "go.etcd.io/bbolt/errors"

	"demiurge.dev/host/runtime"
)

// MaxIndexedText bounds the text one message contributes to the index: a
// huge tool result is searchable by its first part only.
const MaxIndexedText = 32 << 10

// Index is the full-text index of a store's messages. Appended messages
// are queued by the store's observer and written by one goroutine in
// batches; a search first waits until everything appended before it is
// indexed, so a query sees every message already stored.
type Index struct {
	idx   bleve.Index
	store *runtime.Store

	mu      sync.Mutex
	pending []runtime.MessageRecord
	queued  uint64 // messages ever queued
	written uint64 // messages ever indexed (or given up on)
	batches uint64 // batches ever written
	err     error  // the last write failure, reported to searches
	closed  bool
	wake    chan struct{}
	// hurry ends the writer's linger at once: a search is waiting, or
	// the index closes.
	hurry   chan struct{}
	flushed *sync.Cond
	done    chan struct{}
}

// doc is one message as indexed.
type doc struct {
	Session string `json:"session"`
	Role    string `json:"role"`
	Text    string `json:"text"`
	Created string `json:"created"`
}

func indexMapping() mapping.IndexMapping {
	kw := bleve.NewTextFieldMapping()
	kw.Analyzer = keyword.Name
	kw.Store = false
	kwStored := bleve.NewTextFieldMapping()
	kwStored.Analyzer = keyword.Name
	text := bleve.NewTextFieldMapping()
	text.Analyzer = standard.Name
	text.IncludeTermVectors = true // locations for snippets
	m := bleve.NewDocumentStaticMapping()
	m.AddFieldMappingsAt("session", kw)
	m.AddFieldMappingsAt("role", kwStored)
	m.AddFieldMappingsAt("text", text)
	m.AddFieldMappingsAt("created", kwStored)
	im := bleve.NewIndexMapping()
	im.DefaultMapping = m
	im.DefaultAnalyzer = standard.Name
	return im
}

// Open opens (or makes) the index in dir and keeps it up to date with
// store: it observes every AppendMessages from now on, then indexes what
// was stored but not yet indexed (a host that stopped between a message's
// commit and its indexing, or an index deleted by hand).
func Open(dir string, store *runtime.Store) (*Index, error) {
	idx, err := openBleve(dir)
	if err != nil {
		return nil, fmt.Errorf("session index %s: %w", dir, err)
	}
	ix := &Index{idx: idx, store: store, wake: make(chan struct{}, 1), hurry: make(chan struct{}, 1), done: make(chan struct{})}
	ix.flushed = sync.NewCond(&ix.mu)
	store.ObserveMessages(ix.enqueue)
	go ix.writer()
	if err := ix.catchUp(); err != nil {
		ix.Close()
		return nil, err
	}
	return ix, nil
}

// openBleve opens or makes the index. unsafe_batch: a batch is
// searchable once it is in memory and scorch persists it in the
// background, instead of one fsync per batch; the store is the record, so
// a batch lost in a crash is lost with its session marks and catchUp
// indexes it again. For the same reason an index that does not open (a
// crash mid-write, a bad file) is made again from the store rather than
// failing every search; only another process holding it is an error.
func openBleve(dir string) (bleve.Index, error) {
	cfg := map[string]any{"unsafe_batch": true, "bolt_timeout": "2s",
		// Scorch persists every introduced batch at once by default: a
		// segment file, its fsync and two of its root.bolt, for each
		// message of an agent step (about 14 syncs a step, and merging
		// the many small segments after). Napping a second between
		// persists lets a second's batches go to disk as one segment; the
		// store stays the record and catchUp the recovery.
		"scorchPersisterOptions": map[string]any{"PersisterNapTimeMSec": 1000, "PersisterNapUnderNumFiles": 1000}}
	idx, err := bleve.OpenUsing(dir, cfg)
	if err == nil {
		return idx, nil
	}
	if !errors.Is(err, bleve.ErrorIndexPathDoesNotExist) {
		if errors.Is(err, berrors.ErrTimeout) || strings.Contains(err.Error(), "timeout") {
			return nil, fmt.Errorf("another process holds it: %w", err)
		}
		if rmErr := os.RemoveAll(dir); rmErr != nil {
			return nil, fmt.Errorf("%w; removing it to make it again: %v", err, rmErr)
		}
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return nil, err
	}
	return bleve.NewUsing(dir, indexMapping(), scorch.Name, scorch.Name, cfg)
}

// catchUp queues every stored message past its session's indexed mark;
// a session with a bad record is left out.
func (ix *Index) catchUp() error {
	last, err := ix.store.MessageSessions()
	if err != nil {
		return fmt.Errorf("session index: read stored sessions: %w", err)
	}
	for session, n := range last {
		mark, err := ix.mark(session)
		if err != nil {
			return err
		}
		if mark >= n {
			continue
		}
		msgs, err := ix.store.Messages(session, mark)
		if errors.Is(err, runtime.ErrBadRecord) {
			// A torn or tampered record costs its own session (left
			// unindexed, tried again at the next open), never the
			// search of every other.
			continue
		}
		if err != nil {
			return fmt.Errorf("session index: read %s: %w", session, err)
		}
		ix.enqueue(msgs)
	}
	return nil
}

func markKey(session string) []byte { return []byte("mark\x00" + session) }

// mark is the highest Seq of session the index holds.
func (ix *Index) mark(session string) (uint64, error) {
	v, err := ix.idx.GetInternal(markKey(session))
	if err != nil {
		return 0, fmt.Errorf("session index: read mark of %s: %w", session, err)
	}
	if len(v) != 8 {
		return 0, nil
	}
	return binary.BigEndian.Uint64(v), nil
}

func (ix *Index) enqueue(msgs []runtime.MessageRecord) {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	if ix.closed {
		return
	}
	ix.pending = append(ix.pending, msgs...)
	ix.queued += uint64(len(msgs))
	select {
	case ix.wake <- struct{}{}:
	default:
	}
}

// indexLinger is how long the writer lets messages gather before it
// indexes them: every batch builds an in-memory segment (its buffers
// allocated and cleared, merged later), and an agent step stores
// messages every few milliseconds, so a batch per step cost the host
// CPU beside every step (about a sixth of a read step's, issue 29). A
// search does not wait for it (Flush hurries the writer); a crash loses
// nothing (the store is the record; catchUp indexes it again). A variable
// so that tests can change it.
var indexLinger = 250 * time.Millisecond

// writer indexes whatever is queued, one batch per wake-up after the
// linger: the batch carries each session's new mark, so docs and marks
// persist together. It drains the queue a last time when Close closes
// wake.
func (ix *Index) writer() {
	defer close(ix.done)
	linger := time.NewTimer(indexLinger)
	linger.Stop()
	for {
		_, open := <-ix.wake
		if open {
			linger.Reset(indexLinger)
			select {
			case <-linger.C:
			case <-ix.hurry:
				linger.Stop()
			}
		}
		ix.mu.Lock()
		work := ix.pending
		ix.pending = nil
		ix.mu.Unlock()
		if len(work) > 0 {
			err := ix.write(work)
			ix.mu.Lock()
			ix.written += uint64(len(work))
			ix.batches++
			if err != nil {
				ix.err = err
			}
			ix.flushed.Broadcast()
			ix.mu.Unlock()
		}
		if !open {
			return
		}
	}
}

func (ix *Index) write(msgs []runtime.MessageRecord) error {
	b := ix.idx.NewBatch()
	marks := map[string]uint64{}
	for _, m := range msgs {
		text := IndexedText(m)
		if text != "" {
			if err := b.Index(docID(m.Session, m.Seq), doc{Session: m.Session, Role: m.Role, Text: text, Created: m.Created.UTC().Format("2006-01-02T15:04:05Z")}); err != nil {
				return fmt.Errorf("session index: message %d of %s: %w", m.Seq, m.Session, err)
			}
		}
		marks[m.Session] = max(marks[m.Session], m.Seq)
	}
	for s, seq := range marks {
		old, err := ix.mark(s)
		if err != nil {
			return err
		}
		if seq > old {
			b.SetInternal(markKey(s), binary.BigEndian.AppendUint64(nil, seq))
		}
	}
	if err := ix.idx.Batch(b); err != nil {
		return fmt.Errorf("session index: write: %w", err)
	}
	return nil
}

// docID is session NUL zero-padded seq: unique, and re-indexing the same
// message replaces it.
func docID(session string, seq uint64) string {
	return session + "\x00" + fmt.Sprintf("%020d", seq)
}

func parseDocID(id string) (session string, seq uint64, ok bool) {
	s, n, found := strings.Cut(id, "\x00")
	if !found {
		return "", 0, false
	}
	seq, err := strconv.ParseUint(n, 10, 64)
	return s, seq, err == nil
}

// IndexedText is what a message contributes to the index: its text and
// every string in its tool calls and results (the model views), bounded
// by MaxIndexedText.
func IndexedText(m runtime.MessageRecord) string {
	var b strings.Builder
	add := func(s string) {
		if s == "" || b.Len() >= MaxIndexedText {
			return
		}
		if b.Len() > 0 {
			b.WriteByte('\n')
		}
		b.WriteString(s)
	}
	add(m.Text)
	for _, raw := range []json.RawMessage{m.ToolCalls, m.ToolResults} {
		if len(raw) > 0 {
			var v any
			if json.Unmarshal(raw, &v) == nil {
				walkStrings(v, add)
			}
		}
	}
	return truncateUTF8(b.String(), MaxIndexedText)
}

func walkStrings(v any, add func(string)) {
	switch t := v.(type) {
	case string:
		add(t)
	case []any:
		for _, e := range t {
			walkStrings(e, add)
		}
	case map[string]any:
		for _, e := range t {
			walkStrings(e, add)
		}
	}
}

// truncateUTF8 cuts s to at most n bytes on a rune boundary.
func truncateUTF8(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8RuneStart(s[n]) {
		n--
	}
	return s[:n]
}

func utf8RuneStart(b byte) bool { return b&0xC0 != 0x80 }

// Flush waits until every message queued before it is indexed.
func (ix *Index) Flush(ctx context.Context) error {
	ix.mu.Lock()
	defer ix.mu.Unlock()
	target := ix.queued
	if ix.written >= target {
		return ix.err
	}
	ix.hurryUp()
	// Wake the Cond if ctx ends first.
	stop := context.AfterFunc(ctx, func() {
		ix.mu.Lock()
		ix.flushed.Broadcast()
		ix.mu.Unlock()
	})
	defer stop()
	for ix.written < target && !ix.closed {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("session index: still indexing: %w", err)
		}
		ix.flushed.Wait()
	}
	if ix.closed && ix.written < target {
		return errors.New("session index is closed")
	}
	return ix.err
}

// hurryUp ends the writer's linger (or the next one).
func (ix *Index) hurryUp() {
	select {
	case ix.hurry <- struct{}{}:
	default:
	}
}

// Close writes what is queued and closes the index.
func (ix *Index) Close() error {
	ix.mu.Lock()
	if ix.closed {
		ix.mu.Unlock()
		return nil
	}
	ix.closed = true
	ix.hurryUp()
	close(ix.wake) // under mu: enqueue never sends after this
	ix.mu.Unlock()
	<-ix.done
	ix.mu.Lock()
	ix.flushed.Broadcast()
	ix.mu.Unlock()
	return ix.idx.Close()
}
