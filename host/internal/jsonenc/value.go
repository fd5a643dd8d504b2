package jsonenc

import (
	"bytes"
	"encoding/json"
	"slices"
)

// Marshal encodes v exactly as json.Marshal does, byte for byte, HTML
// escaping and sorted keys included: what an event's data and every
// durable record are written with.
func Marshal(v any) ([]byte, error) {
	return Append(make([]byte, 0, 512), v, true)
}

// Append appends v as encoding/json encodes it, with HTML escaping as
// json.Marshal or without it as an Encoder with SetEscapeHTML(false):
// strings, booleans, numbers, string slices and nested maps and slices of
// those are written directly (json.Marshal spends most of its time on
// reflection and on sorting map keys through it), and any other value is
// handed to encoding/json, which encodes it or says why not.
func Append(b []byte, v any, escapeHTML bool) ([]byte, error) {
	return appendValue(b, v, escapeHTML, 0)
}

// AppendKey appends an object key and its colon.
func AppendKey(b []byte, key string, escapeHTML bool) []byte {
	return append(String(b, key, escapeHTML), ':')
}

// Strings appends a string slice as encoding/json encodes it (nil as
// null), for a caller that holds one typed: Append takes an interface,
// and putting a slice in one allocates.
func Strings(b []byte, v []string, escapeHTML bool) []byte {
	if v == nil {
		return append(b, "null"...)
	}
	b = append(b, '[')
	for i, e := range v {
		if i > 0 {
			b = append(b, ',')
		}
		b = String(b, e, escapeHTML)
	}
	return append(b, ']')
}

// maxDirectDepth hands deeper values to encoding/json, whose cycle check
// a recursive walk would otherwise lack.
const maxDirectDepth = 64

func appendValue(b []byte, v any, html bool, depth int) ([]byte, error) {
	if depth > maxDirectDepth {
		return appendStd(b, v, html)
	}
	if out, ok := Scalar(b, v, html); ok {
		return out, nil
	}
	switch v := v.(type) {
	case []string:
		return Strings(b, v, html), nil
	case []any:
		return appendArray(b, v, func(b []byte, e any) ([]byte, error) { return appendValue(b, e, html, depth+1) })
	case map[string]any:
		return appendObject(b, v, html, func(b []byte, e any) ([]byte, error) { return appendValue(b, e, html, depth+1) })
	case map[string]string:
		return appendObject(b, v, html, func(b []byte, e string) ([]byte, error) { return String(b, e, html), nil })
	}
	// Structs, named types, marshalers: encoding/json knows best.
	return appendStd(b, v, html)
}

// appendStd appends what encoding/json makes of v.
func appendStd(b []byte, v any, html bool) ([]byte, error) {
	if html {
		enc, err := json.Marshal(v)
		if err != nil {
			return nil, err
		}
		return append(b, enc...), nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return append(b, bytes.TrimSuffix(buf.Bytes(), []byte("\n"))...), nil
}

// appendArray writes a slice as a JSON array, nil as null, as
// encoding/json does.
func appendArray[E any](b []byte, v []E, elem func([]byte, E) ([]byte, error)) ([]byte, error) {
	if v == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i, e := range v {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = elem(b, e); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

// appendObject writes a map as a JSON object with sorted keys, as
// encoding/json does.
func appendObject[V any](b []byte, m map[string]V, html bool, value func([]byte, V) ([]byte, error)) ([]byte, error) {
	if m == nil {
		return append(b, "null"...), nil
	}
	// The small maps of every call (an event's sizes, its screening) sort
	// their keys on the stack.
	var small [8]string
	keys := small[:0]
	if len(m) > len(small) {
		keys = make([]string, 0, len(m))
	}
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	b = append(b, '{')
	for i, k := range keys {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = value(AppendKey(b, k, html), m[k]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}
