package sdk

import (
	"encoding/json"
	"fmt"
)

// Result is what a tool returns. Content is what the model sees by
// default; ModelOutput and DisplayOutput override the model's and the
// operator card's view when set.
type Result struct {
	Content       string
	ModelOutput   *string
	DisplayOutput *string
	// Structured is an optional JSON-able value with the result's fields.
	Structured any
	IsError    bool
	// ErrorCode is a short machine-readable cause for error results.
	ErrorCode string
}

// Text is a plain text result.
func Text(s string) *Result { return &Result{Content: s} }

// JSON is a result whose content is v as indented JSON, also kept as the
// structured value.
func JSON(v any) *Result {
	b, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return Errorf("encode_failed", "encoding the result failed: %v", err)
	}
	return &Result{Content: string(b), Structured: v}
}

// Errorf is an error result with a code and a message the model can act on.
func Errorf(code, format string, args ...any) *Result {
	return &Result{Content: fmt.Sprintf(format, args...), IsError: true, ErrorCode: code}
}

// WithDisplay sets the operator card's text.
func (r *Result) WithDisplay(s string) *Result { r.DisplayOutput = &s; return r }

// WithModelOutput sets what the model sees instead of Content.
func (r *Result) WithModelOutput(s string) *Result { r.ModelOutput = &s; return r }
