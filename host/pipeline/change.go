package pipeline

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"demiurge.dev/host/core"
)

// MaxChangeBytes bounds what one slot may return: a change is a short
// note or a replacement message, not a document.
const MaxChangeBytes = 64 << 10

// Change is what an input or output slot returns, as a JSON object (the
// authored runtime hands back the entrypoint's dict as JSON):
//
//	{"context": "text to add", "placement": "message" | "system"}
//	{"replace": "the new message or answer"}
//	{"refuse": "why the turn ends"}
//
// context and replace may come together; refuse comes alone. null or {}
// is no change. Any other field, type or shape is malformed.
type Change struct {
	Context   string  `json:"context,omitempty"`
	Placement string  `json:"placement,omitempty"`
	Replace   *string `json:"replace,omitempty"`
	Refuse    string  `json:"refuse,omitempty"`
}

// ParseChange reads one slot's returned text.
func ParseChange(text string) (Change, error) {
	if len(text) > MaxChangeBytes {
		return Change{}, fmt.Errorf("returned %d bytes, over the %d-byte bound of a change", len(text), MaxChangeBytes)
	}
	trimmed := strings.TrimSpace(text)
	if trimmed == "" || trimmed == "null" {
		return Change{}, nil
	}
	var c Change
	dec := json.NewDecoder(bytes.NewReader([]byte(trimmed)))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&c); err != nil {
		return Change{}, fmt.Errorf(`returned something that is not a change (want a dict with "context", "placement", "replace" or "refuse", all strings): %s`, clipErr(err))
	}
	if dec.More() {
		return Change{}, errors.New("returned more than one JSON value")
	}
	switch {
	case c.Refuse != "" && (c.Context != "" || c.Replace != nil):
		return Change{}, errors.New(`returned "refuse" with other fields; a refusal comes alone`)
	case c.Placement != "" && c.Placement != core.PlaceMessage && c.Placement != core.PlaceSystem:
		return Change{}, fmt.Errorf(`returned placement %q; want "message" or "system"`, clip(c.Placement))
	case c.Placement != "" && c.Context == "":
		return Change{}, errors.New(`returned "placement" without "context"`)
	}
	return c, nil
}

func clipErr(err error) string { return clip(err.Error()) }

func clip(s string) string {
	if len(s) > 120 {
		return s[:120] + "…"
	}
	return s
}
