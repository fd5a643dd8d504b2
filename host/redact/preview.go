package redact

import (
	"encoding/json"
	"fmt"
	"slices"
	"sort"
	"strings"

	"demiurge.dev/host/internal/jsonenc"
	"demiurge.dev/shared/textclip"
)

const (
	// DefaultPreviewLimit is the preview length used when none is given.
	DefaultPreviewLimit = 512
	// previewStringMax and previewItemsMax bound one string and one array
	// inside a preview, so one long value cannot hide the others.
	previewStringMax = 160
	previewItemsMax  = 20
	// RedactedField replaces the value of a secret-named field.
	RedactedField = "<redacted>"
)

// Preview renders args as compact JSON for an approval prompt: values of
// secret-named fields become "<redacted>", secrets found elsewhere in the
// arguments and well-known tokens are replaced, long strings and arrays are
// cut with a count of what was cut, and the whole is at most about limit
// bytes (DefaultPreviewLimit if limit <= 0). Redaction happens before any
// cut, so a cut can never leave part of a secret showing.
func Preview(args map[string]any, limit int) (preview string) {
	return PreviewOf(args, limit, nil)
}

// PreviewOf is Preview with known secrets beyond those of the arguments
// (a session's remembered values, the host's own credentials) replaced too.
func PreviewOf(args map[string]any, limit int, known []Secret) (preview string) {
	defer func() {
		if recover() != nil {
			preview = FailedText
		}
	}()
	p, err := newRedactor(mergeSecrets(Discover(args, nil), known)).preview(args, limit)
	if err != nil {
		return FailedText
	}
	return p
}

func (r *redactor) preview(args map[string]any, limit int) (string, error) {
	if limit <= 0 {
		limit = DefaultPreviewLimit
	}
	b, err := r.appendPreview(make([]byte, 0, 64), args)
	if err != nil {
		return "", err
	}
	return cutText(string(b), limit), nil
}

// sanitize copies a JSON-like value with secret-named fields replaced and
// every string redacted; with cut > 0 strings and arrays are shortened.
// Types that JSON arguments cannot hold are refused rather than passed on
// unredacted.
func (r *redactor) sanitize(v any, cut int) (any, error) {
	switch v := v.(type) {
	case nil, bool:
		return v, nil
	case string:
		t := r.text(v)
		if cut > 0 {
			t = cutText(t, cut)
		}
		return t, nil
	case map[string]any:
		keys := make([]string, 0, len(v))
		for k := range v {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		out := make(map[string]any, len(v))
		for _, k := range keys {
			if isSecretName(k) {
				out[r.text(k)] = RedactedField
				continue
			}
			child, err := r.sanitize(v[k], cut)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", k, err)
			}
			out[r.text(k)] = child
		}
		return out, nil
	case map[string]string:
		m := make(map[string]any, len(v))
		for k, s := range v {
			m[k] = s
		}
		return r.sanitize(m, cut)
	case []any:
		n := len(v)
		if cut > 0 && n > previewItemsMax {
			n = previewItemsMax
		}
		out := make([]any, 0, n+1)
		for _, e := range v[:n] {
			child, err := r.sanitize(e, cut)
			if err != nil {
				return nil, err
			}
			out = append(out, child)
		}
		if n < len(v) {
			out = append(out, fmt.Sprintf("…(+%d items)", len(v)-n))
		}
		return out, nil
	case []string:
		a := make([]any, len(v))
		for i, s := range v {
			a[i] = s
		}
		return r.sanitize(a, cut)
	case float64, float32, int, int64, int32, uint, uint64, uint32, json.Number:
		if r.plainNumber(v) {
			return v, nil
		}
		// A number can be a secret too (a PIN found elsewhere).
		if s := numberText(v); r.text(s) != s {
			return r.text(s), nil
		}
		return v, nil
	}
	return nil, fmt.Errorf("value of type %T cannot be redacted", v)
}

// cutText shortens s to at most max bytes at a character boundary and says
// how much was cut.
func cutText(s string, max int) string {
	if len(s) <= max {
		return s
	}
	n := textclip.Cut(s, max)
	return fmt.Sprintf("%s…(+%d bytes)", s[:n], len(s)-n)
}

// appendJSON and appendString write the preview with the host's one
// encoder, without HTML escaping so that markers stay readable.
func appendJSON(b []byte, v any) ([]byte, error) { return jsonenc.Append(b, v, false) }

func appendString(b []byte, s string) []byte { return jsonenc.String(b, s, false) }

// appendPreview appends the JSON of sanitize(v, previewStringMax) without
// building the sanitized copy: the same bytes, and an error exactly when
// sanitizing or encoding would fail.
func (r *redactor) appendPreview(b []byte, v any) ([]byte, error) {
	const cut = previewStringMax
	switch v := v.(type) {
	case nil, bool:
		return appendJSON(b, v)
	case string:
		return appendString(b, cutText(r.text(v), cut)), nil
	case map[string]any:
		return r.appendPreviewObject(b, v)
	case map[string]string:
		m := make(map[string]any, len(v))
		for k, s := range v {
			m[k] = s
		}
		return r.appendPreviewObject(b, m)
	case []any:
		n := min(len(v), previewItemsMax)
		b = append(b, '[')
		for i, e := range v[:n] {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = r.appendPreview(b, e); err != nil {
				return nil, err
			}
		}
		if n < len(v) {
			if n > 0 {
				b = append(b, ',')
			}
			b = appendString(b, fmt.Sprintf("…(+%d items)", len(v)-n))
		}
		return append(b, ']'), nil
	case []string:
		a := make([]any, len(v))
		for i, s := range v {
			a[i] = s
		}
		return r.appendPreview(b, a)
	case float64, float32, int, int64, int32, uint, uint64, uint32, json.Number:
		if r.plainNumber(v) {
			return appendJSON(b, v)
		}
		if s := numberText(v); r.text(s) != s {
			return appendString(b, r.text(s)), nil
		}
		return appendJSON(b, v)
	}
	return nil, fmt.Errorf("value of type %T cannot be redacted", v)
}

// appendPreviewObject writes an object as sanitize builds it: each key
// redacted, the value of a secret-named one replaced, and when two keys
// redact to the same text the later of them (in key order) kept, as the
// later assignment to sanitize's map is; the value of a key that is not
// kept is still sanitized, since sanitize would fail on it.
func (r *redactor) appendPreviewObject(b []byte, m map[string]any) ([]byte, error) {
	type key struct{ out, in string }
	keys := make([]key, 0, len(m))
	for k := range m {
		keys = append(keys, key{r.text(k), k})
	}
	slices.SortFunc(keys, func(a, b key) int {
		if n := strings.Compare(a.out, b.out); n != 0 {
			return n
		}
		return strings.Compare(a.in, b.in)
	})
	b = append(b, '{')
	first := true
	for i, k := range keys {
		secret := isSecretName(k.in)
		if i+1 < len(keys) && keys[i+1].out == k.out {
			// Not kept: a later key redacts to the same text.
			if !secret {
				if _, err := r.sanitize(m[k.in], previewStringMax); err != nil {
					return nil, err
				}
			}
			continue
		}
		if !first {
			b = append(b, ',')
		}
		first = false
		b = append(appendString(b, k.out), ':')
		if secret {
			b = appendString(b, RedactedField)
			continue
		}
		var err error
		if b, err = r.appendPreview(b, m[k.in]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}
