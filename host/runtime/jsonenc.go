package runtime

import (
	"encoding/json"
	"slices"

	"demiurge.dev/host/internal/jsonenc"
)

// MarshalData encodes an event's data exactly as json.Marshal does, byte
// for byte, HTML escaping and sorted keys included. Every call writes one
// event, and json.Marshal spends most of its time on reflection and on
// sorting map keys through it: strings, booleans, numbers, string slices
// and nested maps and slices of those are written directly here, and any
// other value is handed to json.Marshal.
func MarshalData(data map[string]any) (json.RawMessage, error) {
	return appendJSON(make([]byte, 0, 512), data, 0)
}

// maxDirectDepth hands deeper values to json.Marshal, whose cycle check a
// recursive walk would otherwise lack.
const maxDirectDepth = 64

func appendJSON(b []byte, v any, depth int) ([]byte, error) {
	if depth > maxDirectDepth {
		return appendMarshalled(b, v)
	}
	if out, ok := jsonenc.Scalar(b, v, true); ok {
		return out, nil
	}
	switch v := v.(type) {
	case []string:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, s := range v {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, s)
		}
		return append(b, ']'), nil
	case []any:
		if v == nil {
			return append(b, "null"...), nil
		}
		b = append(b, '[')
		for i, e := range v {
			if i > 0 {
				b = append(b, ',')
			}
			var err error
			if b, err = appendJSON(b, e, depth+1); err != nil {
				return nil, err
			}
		}
		return append(b, ']'), nil
	case map[string]any:
		return appendObject(b, v, func(b []byte, e any) ([]byte, error) { return appendJSON(b, e, depth+1) })
	case map[string]string:
		return appendObject(b, v, func(b []byte, e string) ([]byte, error) { return appendJSONString(b, e), nil })
	}
	// Structs, named types, marshalers: json.Marshal knows best.
	return appendMarshalled(b, v)
}

func appendMarshalled(b []byte, v any) ([]byte, error) {
	enc, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, enc...), nil
}

// appendJSONString is encoding/json's string encoding with HTML escaping,
// which json.Marshal uses.
func appendJSONString(b []byte, s string) []byte { return jsonenc.String(b, s, true) }

// appendObject writes a map as a JSON object with sorted keys, as
// encoding/json does.
func appendObject[V any](b []byte, m map[string]V, value func([]byte, V) ([]byte, error)) ([]byte, error) {
	if m == nil {
		return append(b, "null"...), nil
	}
	keys := make([]string, 0, len(m))
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
		if b, err = value(append(appendJSONString(b, k), ':'), m[k]); err != nil {
			return nil, err
		}
	}
	return append(b, '}'), nil
}
