package redact

import (
	"strings"
	"unicode/utf8"

	shared "demiurge.dev/shared/redact"
)

// redactor applies one call's secrets and the token table to text.
type redactor struct {
	exact *shared.Replacer
	// memo holds results by input: content, model output and display
	// output are often the same text, redacted once. A few slots, not a
	// map: a call has few long texts, and the map was two allocations of
	// every call with one. The memo only saves work (text is a pure
	// function of its input for one redactor); a text past the slots is
	// redacted again.
	memo  [memoSlots]memoEntry
	memos int
}

// memoEntry is one remembered text and its redaction.
type memoEntry struct{ in, out string }

// memoSlots is how many long texts a redactor remembers: a result's
// content, model output, display output and error, and its structured
// result's longest strings.
const memoSlots = 4

// noSecrets is the replacer of a call without secrets; it is immutable.
var noSecrets = shared.NewReplacer(nil)

// newRedactor is small enough to be inlined, so that a call without
// secrets (most calls) keeps its redactor on the caller's stack.
func newRedactor(secrets []Secret) *redactor {
	if len(secrets) == 0 {
		return &redactor{exact: noSecrets}
	}
	return &redactor{exact: replacerOf(secrets)}
}

// replacerOf builds the exact-value replacer of secrets.
func replacerOf(secrets []Secret) *shared.Replacer {
	pairs := make([]shared.Secret, len(secrets))
	for i, s := range secrets {
		pairs[i] = shared.Secret{Target: s.Target, Value: s.Value}
	}
	// A target comes from a name in the input (a header, a key), and a
	// marker is never scanned again: a target that holds a secret value or
	// a known token would carry it into every view. Such a target is
	// replaced by a neutral one, and only then is the replacer built again.
	exact := shared.NewReplacer(pairs)
	neutralised := false
	for i, p := range pairs {
		if exact.String(p.Target) != p.Target || applyTokens(p.Target) != p.Target {
			pairs[i].Target = "secret"
			neutralised = true
		}
	}
	if neutralised {
		exact = shared.NewReplacer(pairs)
	}
	return exact
}

// text replaces exact secret values first (they are known for certain),
// then well-known token formats, and makes the result valid UTF-8 so every
// view serialises the same way.
func (r *redactor) text(s string) string {
	hook("text")
	if len(s) < memoMin {
		return validUTF8(applyTokens(r.exact.String(s)))
	}
	for i := range r.memos {
		if e := &r.memo[i]; e.in == s {
			return e.out
		}
	}
	out := validUTF8(applyTokens(r.exact.String(s)))
	if r.memos < memoSlots {
		r.memo[r.memos] = memoEntry{s, out}
		r.memos++
	}
	return out
}

// validUTF8 is strings.ToValidUTF8 with U+FFFD. That returns valid text
// unchanged too, but finds out rune by rune; utf8.ValidString checks
// ASCII eight bytes at a time.
func validUTF8(s string) string {
	if utf8.ValidString(s) {
		return s
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// memoMin is the shortest text worth remembering: names, keys and small
// values are redacted again faster than a map remembers them.
const memoMin = 128

// hook lets tests inject a failure at a named stage; nil in production.
var failureHook func(stage string)

func hook(stage string) {
	if failureHook != nil {
		failureHook(stage)
	}
}
