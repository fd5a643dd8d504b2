package dispatch

import (
	"sort"
	"strings"

	"demiurge.dev/host/redact"
	sharedredact "demiurge.dev/shared/redact"
)

// HostSecrets are the credentials the host holds itself: its
// environment's secret-named variables, the model's key and the
// installed packages' credentials (by variable name). A command never gets
// them (they are not in its environment, and they are never handed to a
// plugin), but one may still find a copy where the operator left it (a
// .env file, a shell history, a config) and print it: every view of every
// call, its live output, the approval's preview and diff, and task output
// replace them as they replace a bound value.
type HostSecrets struct {
	list []redact.Secret
	rep  *sharedredact.Replacer
	// numeric: some value is written with number bytes alone, so a
	// number's text may hold it (holds formats numbers only then).
	numeric bool
}

// numberBytes are every byte redact.NumberText writes (strconv's 'f'
// format, NaN and ±Inf included).
const numberBytes = "0123456789.-+NaInf"

// NewHostSecrets compiles the host's credentials (variable name → value).
func NewHostSecrets(values map[string]string) *HostSecrets {
	h := &HostSecrets{}
	pairs := make([]sharedredact.Secret, 0, len(values))
	for name, v := range values {
		if len(v) < sharedredact.MinSecretLen {
			continue
		}
		h.list = append(h.list, redact.Secret{Value: v, Source: "host:" + name, Target: name})
		h.numeric = h.numeric || strings.Trim(v, numberBytes) == ""
		pairs = append(pairs, sharedredact.Secret{Target: name, Value: v})
	}
	sort.Slice(h.list, func(i, j int) bool { return h.list[i].Target < h.list[j].Target })
	h.rep = sharedredact.NewReplacer(pairs)
	return h
}

// all are every host secret (nil for none).
func (h *HostSecrets) all() []redact.Secret {
	if h == nil {
		return nil
	}
	return h.list
}

// in are the host secrets that occur in raw: its texts, its arguments and
// its structured result (keys and values). Most results hold none, and
// then the views are made as if the host had none.
func (h *HostSecrets) in(raw *redact.Raw) []redact.Secret {
	if h == nil || h.rep.Empty() {
		return nil
	}
	found := false
	for _, s := range [...]string{raw.Tool, raw.CallID, raw.Content, raw.ModelOutput, raw.DisplayOutput, raw.ErrorText} {
		if h.rep.Contains(s) {
			found = true
			break
		}
	}
	if !found && !h.holds(raw.Args) && !h.holds(raw.ShownArgs) && !h.holds(raw.StructuredObject()) {
		return nil
	}
	// Rare: give every host secret, the redactor replaces those there.
	return h.list
}

// holds reports whether a JSON-like value holds a host secret in any key,
// string or number (the views replace a value in a number's text too: a
// credential of digits); a type it does not know counts as holding one
// (fail closed).
func (h *HostSecrets) holds(v any) bool {
	switch v := v.(type) {
	case nil, bool:
		return false
	case float64, float32, int, int64, int32, uint, uint64, uint32:
		return h.numeric && h.rep.Contains(redact.NumberText(v))
	case string:
		return h.rep.Contains(v)
	case map[string]any:
		for k, e := range v {
			if h.rep.Contains(k) || h.holds(e) {
				return true
			}
		}
		return false
	case []any:
		for _, e := range v {
			if h.holds(e) {
				return true
			}
		}
		return false
	}
	return true
}

// redactionValues are the values every text a call shows must not hold
// beyond its own: those bound to the session's earlier commands and the
// host's own credentials.
func (t *Turn) redactionValues() []redact.Secret {
	return append(t.Remembered.secrets(), t.HostSecrets.all()...)
}

// RedactText hides in s the values every view of this turn hides beyond
// a call's own (the session's remembered values and the host's
// credentials): for text the host writes into the conversation outside a
// call, such as a completion turn's message with a child's answer.
func (t *Turn) RedactText(s string) string { return redact.TextOf(s, t.redactionValues()) }
