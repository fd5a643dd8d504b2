package redact

import "demiurge.dev/host/internal/jsonenc"

// appendJSON appends a scalar as marshal encodes it (encoding/json
// without HTML escaping), byte for byte: nil, booleans, strings, float64
// and integers directly, and any other value (and a float JSON cannot
// hold) through marshal, which encodes it or reports why not. The preview
// of every call is encoded with it and appendString (appendPreview):
// json.Encoder spends most of its time on reflection and on sorting map
// keys through it.
func appendJSON(b []byte, v any) ([]byte, error) {
	if out, ok := jsonenc.Scalar(b, v, false); ok {
		return out, nil
	}
	enc, err := marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, enc...), nil
}

// appendString is encoding/json's string encoding without HTML escaping.
func appendString(b []byte, s string) []byte { return jsonenc.String(b, s, false) }
