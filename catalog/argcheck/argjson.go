package argcheck

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"demiurge.dev/catalog/internal/jsonvalue"
)

// MaxArgumentBytes bounds one call's arguments document. It is checked
// before parsing so that an oversized document costs nothing.
const MaxArgumentBytes = 256 << 10

// maxArgumentDepth bounds nesting; real tool arguments are a few levels deep.
const maxArgumentDepth = 64

// decodeArguments parses a model's arguments. Empty and null mean {}.
// Numbers stay json.Number so that no precision is lost, duplicate keys are
// refused (two readers could otherwise disagree on which one counts), and
// nesting and number literals are bounded.
func decodeArguments(args json.RawMessage) (map[string]any, error) {
	if len(args) > MaxArgumentBytes {
		return nil, argError("", fmt.Sprintf(
			"arguments are %s, over the %d KiB limit: send less per call (split the work into several calls)",
			kib(len(args)), MaxArgumentBytes>>10))
	}
	trimmed := bytes.TrimSpace(args)
	if len(trimmed) == 0 || bytes.Equal(trimmed, []byte("null")) {
		return map[string]any{}, nil
	}
	if m, ok := decodeFast(trimmed); ok {
		return m, nil
	}
	return decodeDocument(trimmed)
}

// decodeDocument parses a trimmed, non-empty arguments document with
// json.Decoder's token API, and writes the error for any it refuses.
func decodeDocument(trimmed []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(trimmed))
	dec.UseNumber()
	v, err := decodeValue(dec, "", 0)
	if err != nil {
		return nil, err
	}
	if _, err := dec.Token(); err != io.EOF {
		return nil, argError("", "arguments must be a single JSON object; there is more text after it")
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, argError("", "arguments must be a JSON object, got "+jsonvalue.Kind(v))
	}
	return m, nil
}

func decodeValue(dec *json.Decoder, path string, depth int) (any, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, syntaxError(err)
	}
	switch t := tok.(type) {
	case json.Delim:
		if depth >= maxArgumentDepth {
			return nil, argError(path, fmt.Sprintf("arguments are nested more than %d levels deep", maxArgumentDepth))
		}
		if t == '{' {
			return decodeObject(dec, path, depth)
		}
		return decodeArray(dec, path, depth)
	case json.Number:
		if err := jsonvalue.CheckNumber(string(t)); err != nil {
			return nil, argError(path, fmt.Sprintf("%s: %v", argumentLabel(path), err))
		}
		return t, nil
	default: // string, bool, nil
		return t, nil
	}
}

func decodeObject(dec *json.Decoder, path string, depth int) (any, error) {
	m := map[string]any{}
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			return nil, syntaxError(err)
		}
		key := tok.(string) // the decoder guarantees a string key here
		child := joinPath(path, key, false)
		if _, dup := m[key]; dup {
			return nil, argError(child, fmt.Sprintf("argument '%s' is given twice: give each argument once", child))
		}
		v, err := decodeValue(dec, child, depth+1)
		if err != nil {
			return nil, err
		}
		m[key] = v
	}
	if _, err := dec.Token(); err != nil { // '}'
		return nil, syntaxError(err)
	}
	return m, nil
}

func decodeArray(dec *json.Decoder, path string, depth int) (any, error) {
	a := []any{}
	for dec.More() {
		v, err := decodeValue(dec, joinPath(path, strconv.Itoa(len(a)), true), depth+1)
		if err != nil {
			return nil, err
		}
		a = append(a, v)
	}
	if _, err := dec.Token(); err != nil { // ']'
		return nil, syntaxError(err)
	}
	return a, nil
}

func syntaxError(err error) error {
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return argError("", "arguments are not valid JSON: the text ends early; send one complete JSON object")
	}
	var se *json.SyntaxError
	if errors.As(err, &se) {
		return argError("", fmt.Sprintf("arguments are not valid JSON: %s (at byte %d); send one JSON object", se.Error(), se.Offset))
	}
	return argError("", "arguments are not valid JSON: "+err.Error())
}

// argumentLabel names an argument for a message; the empty path is the
// arguments document itself.
func argumentLabel(path string) string {
	if path == "" {
		return "arguments"
	}
	return "argument '" + path + "'"
}

func kib(n int) string {
	return strconv.FormatFloat(float64(n)/1024, 'f', 1, 64) + " KiB"
}

// jsonText renders a decoded value as compact JSON for messages.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}
