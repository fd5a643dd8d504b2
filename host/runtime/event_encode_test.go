package runtime

import (
	"bytes"
	"encoding/json"
	"math"
	"testing"
	"time"
)

// dataSamples cover every kind the direct path writes and some it hands on.
var dataSamples = []map[string]any{
	nil,
	{},
	{"status": "ok", "duration_ms": int64(3), "is_error": false, "arg_keys": []string{"path"},
		"sizes": map[string]any{"content_bytes": 86, "error_bytes": 0}, "secret_sources": []string{},
		"approval": map[string]any{"allowed": true, "via": "auto", "reason": "<redacted:x> & more"},
		"source":   struct{ Kind, Path string }{"builtin", "/bin/x"}, "nil": nil, "none": []string(nil)},
	{"escapes": "q\" b\\ \b\f\n\r\t \x00\x1f \x7f <>& \u2028\u2029 \xff\xfe é 😀", "\u2028<key>": 1},
	{"numbers": []any{1.5, 1e21, 1e-7, 0.0, -3, float32(2.5), json.Number("12"), uint64(math.MaxUint64), int32(-7), uint32(7), int8(1)}},
	{"nested": map[string]any{"a": []any{map[string]any{"b": map[string]string{"z": "1", "a": "<2>"}}, nil, true}}},
	{"typed": time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC), "raw": json.RawMessage(`{"x": [1, 2]}`), "bytes": []byte("hi")},
}

// storedJSON is encodeEvent as it was: json.Marshal of storedEvent.
func storedJSON(ev Event) ([]byte, error) {
	return json.Marshal(storedEvent{Time: ev.Time, Kind: ev.Kind, Session: ev.Session, Tool: ev.Tool, CallID: ev.CallID, Data: ev.Data})
}

func FuzzEncodeEvent(f *testing.F) {
	f.Add("tool.call", "ses_1", "read_file", "call_1", `{"b": "<x>", "a": [1, 2]}`, int64(1767225600123456789))
	f.Add("k", "", "", "", "", int64(0))
	f.Add("k\u2028", "<s>", "\xff", "\"", "null", int64(-62135596800000000))
	f.Fuzz(func(t *testing.T, kind, session, tool, callID, data string, unixNano int64) {
		ev := Event{Time: time.Unix(0, unixNano).UTC(), Kind: kind, Session: session, Tool: tool, CallID: callID, Data: json.RawMessage(data)}
		got, gerr := encodeEvent(ev)
		if kind == "" {
			if gerr == nil {
				t.Fatal("an event without a kind was encoded")
			}
			return
		}
		want, werr := storedJSON(ev)
		if !bytes.Equal(got, want) || (werr == nil) != (gerr == nil) {
			t.Fatalf("encodeEvent = %s, %v; json.Marshal = %s, %v", got, gerr, want, werr)
		}
	})
}
