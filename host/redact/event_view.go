package redact

import (
	"encoding/json"
	"strconv"

	"demiurge.dev/host/internal/jsonenc"
)

// EventView is the event view: names, sizes and where secrets were
// found, never a value. Make fills its fields (EventMeta) typed, not in
// a map: every call makes one, and its two maps, the boxed values in them
// and the sorting of their keys when the audit wrote them were about
// eight allocations and 700 bytes of every call. Map gives it in the map
// form it always had; that is what every reader sees and every encoder
// writes.
//
// The zero EventView is no event view (Map is nil). A field a later stage
// adds (Set: an output policy, the screening verdict) is kept beside the
// made fields and wins over one of the same name.
type EventView struct {
	meta  EventMeta
	made  bool           // Make filled meta
	added map[string]any // fields beyond meta: Set's, or all of EventOf's
}

// EventMeta are the fields Make gives every event view, each redacted.
type EventMeta struct {
	Tool, CallID  string
	IsError       bool
	ArgKeys       []string // sorted
	Sizes         Sizes
	SecretSources []string // sorted, each place once; empty (not nil) when none
}

// Sizes are the event view's sizes field: the byte lengths of the
// result's texts, and how many keys its structured result has.
type Sizes struct {
	Content, Error                                  int
	ModelOutput, DisplayOutput                      int
	StructuredKeys                                  int
	HasModelOutput, HasDisplayOutput, HasStructured bool
}

// EventOf is an event view of the given fields alone (a failed or
// hand-built one); a nil map is no event view.
func EventOf(fields map[string]any) EventView { return EventView{added: fields} }

// IsZero reports whether e is no event view at all.
func (e EventView) IsZero() bool { return !e.made && e.added == nil }

// Meta is the fields Make filled; ok is false for a view it did not make.
func (e EventView) Meta() (m EventMeta, ok bool) { return e.meta, e.made }

// Added are the fields beyond Meta's, which a reader must not change.
func (e EventView) Added() map[string]any { return e.added }

// Set adds (or replaces) a field. Copies of the Views made before the
// first Set do not see it.
func (e *EventView) Set(key string, value any) {
	if e.added == nil {
		e.added = make(map[string]any, 1)
	}
	e.added[key] = value
}

// Get is Map()[key], without building the map for an added field.
func (e EventView) Get(key string) any {
	if v, ok := e.added[key]; ok || !e.made {
		return v
	}
	return e.Map()[key]
}

// metaKeys are the names of Meta's fields in the map form.
var metaKeys = [...]string{"tool", "call_id", "is_error", "arg_keys", "sizes", "secret_sources"}

// Len is len(Map()).
func (e EventView) Len() int {
	n := len(e.added)
	if e.made {
		for _, k := range metaKeys {
			if _, ok := e.added[k]; !ok {
				n++
			}
		}
	}
	return n
}

// Map is the event view as a map, as Make built it before it was typed:
// each call builds a new one, and a change to it is not kept.
func (e EventView) Map() map[string]any {
	if e.IsZero() {
		return nil
	}
	m := make(map[string]any, e.Len())
	e.AddTo(m)
	return m
}

// MarshalJSON writes Map (null for no event view).
func (e EventView) MarshalJSON() ([]byte, error) { return json.Marshal(e.Map()) }

// AddTo puts the event view's fields into m.
func (e EventView) AddTo(m map[string]any) {
	if e.made {
		mt := &e.meta
		m["tool"], m["call_id"], m["is_error"] = mt.Tool, mt.CallID, mt.IsError
		m["arg_keys"], m["sizes"], m["secret_sources"] = mt.ArgKeys, mt.Sizes.Map(), mt.SecretSources
	}
	for k, v := range e.added {
		m[k] = v
	}
}

// Map is the sizes field as a map: content_bytes and error_bytes always,
// the others when the result had them.
func (s Sizes) Map() map[string]any {
	m := map[string]any{"content_bytes": s.Content, "error_bytes": s.Error}
	if s.HasModelOutput {
		m["model_output_bytes"] = s.ModelOutput
	}
	if s.HasDisplayOutput {
		m["display_output_bytes"] = s.DisplayOutput
	}
	if s.HasStructured {
		m["structured_keys"] = s.StructuredKeys
	}
	return m
}

// AppendJSON writes the sizes as encoding/json writes Map's map: its
// keys sorted.
func (s Sizes) AppendJSON(b []byte) []byte {
	field := func(b []byte, key string, n int) []byte {
		return strconv.AppendInt(jsonenc.AppendKey(b, key, false), int64(n), 10)
	}
	b = field(append(b, '{'), "content_bytes", s.Content)
	if s.HasDisplayOutput {
		b = field(append(b, ','), "display_output_bytes", s.DisplayOutput)
	}
	b = field(append(b, ','), "error_bytes", s.Error)
	if s.HasModelOutput {
		b = field(append(b, ','), "model_output_bytes", s.ModelOutput)
	}
	if s.HasStructured {
		b = field(append(b, ','), "structured_keys", s.StructuredKeys)
	}
	return append(b, '}')
}
