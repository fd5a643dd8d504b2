package redact

import (
	"strings"

	shared "demiurge.dev/shared/redact"
)

// redactor applies one call's secrets and the token table to text.
type redactor struct {
	exact *shared.Replacer
	// memo holds results by input: content, model output and display
	// output are often the same text, redacted once.
	memo map[string]string
}

func newRedactor(secrets []Secret) *redactor {
	pairs := make([]shared.Secret, len(secrets))
	for i, s := range secrets {
		pairs[i] = shared.Secret{Target: s.Target, Value: s.Value}
	}
	// A target comes from a name in the input (a header, a key), and a
	// marker is never scanned again: a target that holds a secret value or
	// a known token would carry it into every view. Such a target is
	// replaced by a neutral one.
	probe := shared.NewReplacer(pairs)
	for i, p := range pairs {
		if probe.String(p.Target) != p.Target || applyTokens(p.Target) != p.Target {
			pairs[i].Target = "secret"
		}
	}
	return &redactor{exact: shared.NewReplacer(pairs), memo: map[string]string{}}
}

// text replaces exact secret values first (they are known for certain),
// then well-known token formats, and makes the result valid UTF-8 so every
// view serialises the same way.
func (r *redactor) text(s string) string {
	hook("text")
	if out, ok := r.memo[s]; ok {
		return out
	}
	out := strings.ToValidUTF8(applyTokens(r.exact.String(s)), "\uFFFD")
	r.memo[s] = out
	return out
}

// hook lets tests inject a failure at a named stage; nil in production.
var failureHook func(stage string)

func hook(stage string) {
	if failureHook != nil {
		failureHook(stage)
	}
}
