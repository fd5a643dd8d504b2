package redact

import (
	"encoding/json"
	"strings"
)

// ModelView is the text the model reads of a result. It is held as up to
// three parts, Head + Body + Tail: an untrusted result's envelope puts
// its opening line in Head and its closing line in Tail, beside the
// content in Body, so that wrapping a result of a megabyte does not copy
// it. Every other result is Body alone. The text is always the three
// joined; a reader that needs one string calls String, which joins only
// when there is an envelope.
type ModelView struct {
	Head, Body, Tail string
}

// ModelText is the model view that is text, with no envelope.
func ModelText(s string) ModelView { return ModelView{Body: s} }

// String is the model view as one string: Body itself when there is no
// envelope, else the three parts joined (one copy).
func (m ModelView) String() string {
	if m.Head == "" && m.Tail == "" {
		return m.Body
	}
	var b strings.Builder
	b.Grow(m.Len())
	b.WriteString(m.Head)
	b.WriteString(m.Body)
	b.WriteString(m.Tail)
	return b.String()
}

// Len is the length of the model view in bytes.
func (m ModelView) Len() int { return len(m.Head) + len(m.Body) + len(m.Tail) }

// MarshalJSON encodes the model view as the one JSON string it is.
func (m ModelView) MarshalJSON() ([]byte, error) { return json.Marshal(m.String()) }
