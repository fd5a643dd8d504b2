package redact

// sanitizeKept is sanitize(v, 0) for a value the caller hands over: when
// redaction changes nothing in it (no secret-named field, no secret or
// token in a key or value, the common result), it returns v itself, not a
// copy; otherwise it returns sanitize's copy. Either way the result is
// equal to sanitize(v, 0) (TestSanitizeKeptIsSanitize, FuzzSanitizeKept).
// The check makes the same redactions sanitize makes, without the sorted
// keys, the new maps and their inserts.
func (r *redactor) sanitizeKept(v any) (any, error) {
	if r.unchanged(v, 0) {
		return v, nil
	}
	return r.sanitize(v, 0)
}

// unchanged reports whether sanitize(v, 0) would give v back as it is;
// anything it is unsure of (a type sanitize converts or refuses, nesting
// past keptMaxDepth) counts as changed, and sanitize then decides.
func (r *redactor) unchanged(v any, depth int) bool {
	if depth > keptMaxDepth {
		return false
	}
	switch v := v.(type) {
	case nil, bool:
		return true
	case string:
		return r.text(v) == v
	case map[string]any:
		for k, e := range v {
			if isSecretName(k) || r.text(k) != k || !r.unchanged(e, depth+1) {
				return false
			}
		}
		return true
	case []any:
		for _, e := range v {
			if !r.unchanged(e, depth+1) {
				return false
			}
		}
		return true
	case float64, float32, int, int64, int32, uint, uint64, uint32:
		if r.plainNumber(v) {
			return true
		}
		s := numberText(v)
		return r.text(s) == s
	}
	return false // json.Number, map[string]string, []string, others: sanitize's
}

// keptMaxDepth bounds the check's recursion; deeper values take the copy.
const keptMaxDepth = 64
