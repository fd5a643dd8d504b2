package redact

import "sync"

// Deferred is a structured result whose JSON text was read but is decoded
// only when someone reads it whole (Raw.Deferred, Views.Structured). On
// the call path hardly anyone does: the audit event counts its keys, the
// card and the turn read a command's exit code. Building the object (its
// map, its boxed strings and numbers: ten allocations and a kilobyte for
// a read_file) was the largest piece of dispatch's own work on a call.
type Deferred struct {
	Keys     int    // its distinct top-level keys (Sizes.StructuredKeys)
	ExitCode any    // its top-level exit_code member, decoded; nil when none
	Text     string // its JSON text, owned (not the protobuf message's bytes)
	// Decode makes the object from Text, exactly as the result would
	// have been decoded at once; it is called at most once.
	Decode func(text string) map[string]any

	once sync.Once
	m    map[string]any
}

// Map is the decoded object, made on the first call.
func (d *Deferred) Map() map[string]any {
	d.once.Do(func() { d.m = d.Decode(d.Text) })
	return d.m
}

// structured is the result Raw holds, decoded if it was deferred: nil
// (the interface, not a nil map) when there is none.
func (raw *Raw) structured() any {
	if raw.Structured != nil {
		return raw.Structured
	}
	if raw.Deferred != nil {
		if m := raw.Deferred.Map(); m != nil {
			return m
		}
	}
	return nil
}

// StructuredObject is Structured, or the deferred result decoded.
func (raw *Raw) StructuredObject() map[string]any {
	m, _ := raw.structured().(map[string]any)
	return m
}

// structuredKeys is Sizes.StructuredKeys and HasStructured of raw.
func (raw *Raw) structuredKeys() (int, bool) {
	if raw.Structured == nil && raw.Deferred != nil {
		return raw.Deferred.Keys, true
	}
	return len(raw.Structured), raw.Structured != nil
}

// commandFailed is CommandFailed of raw's structured result, which it
// does not decode when deferred.
func (raw *Raw) commandFailed() bool {
	if raw.Structured == nil && raw.Deferred != nil {
		code, ok := exitCode(raw.Deferred.ExitCode)
		return ok && code != 0
	}
	return CommandFailed(raw.Structured)
}
