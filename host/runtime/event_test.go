package runtime

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
)

// compactedAsRaw is what json.Marshal makes of data as a json.RawMessage
// field: compacted, checked and HTML-escaped.
func compactedAsRaw(data []byte) ([]byte, error) {
	return json.Marshal(json.RawMessage(data))
}

func TestCompactSafe(t *testing.T) {
	tests := []struct {
		data string
		safe bool
	}{
		{`{}`, true}, {`[]`, true}, {`""`, true}, {`0`, true}, {`-0.5e+10`, true}, {`1E-2`, true},
		{`true`, true}, {`false`, true}, {`null`, true},
		{`{"a":[1,"x",null,{"b":true}],"c":{}}`, true},
		{`{"q":"\" \\ \/ \b \f \n \r \t \u00e9 \u2028 \uD83D"}`, true},
		{"{\"utf8\":\"é 😀 \xff\xfe\"}", true},   // invalid UTF-8 is copied by Compact
		{"\"\xe2\x80\xa7 \xe2\x80\xaa\"", true}, // neighbours of U+2028/9
		// What Compact would change: whitespace, HTML and U+2028/9.
		{`{"a": 1}`, false}, {` {}`, false}, {`{} `, false}, {"[1,\n2]", false},
		{`"<"`, false}, {`">"`, false}, {`"&"`, false},
		{"\"\xe2\x80\xa8\"", false}, {"\"\xe2\x80\xa9\"", false},
		// Invalid JSON.
		{``, false}, {`{`, false}, {`{"a"}`, false}, {`{"a":}`, false}, {`{"a":1,}`, false},
		{`[1,]`, false}, {`[,1]`, false}, {`{1:2}`, false}, {`01`, false}, {`1.`, false}, {`.5`, false},
		{`1e`, false}, {`1e+`, false}, {`-`, false}, {`+1`, false}, {`tru`, false}, {`nulll`, false},
		{`"abc`, false}, {`"\x"`, false}, {`"\u12"`, false}, {`"\u12g4"`, false}, {"\"\x01\"", false},
		{`{}{}`, false}, {`1 2`, false}, {`"\`, false}, {`NaN`, false},
		{strings.Repeat("[", maxSafeDepth) + strings.Repeat("]", maxSafeDepth), true},
		{strings.Repeat("[", maxSafeDepth+1) + strings.Repeat("]", maxSafeDepth+1), false},
	}
	for _, tt := range tests {
		if got := compactSafe([]byte(tt.data)); got != tt.safe {
			t.Errorf("compactSafe(%.40q) = %v, want %v", tt.data, got, tt.safe)
		}
		if tt.safe {
			want, err := compactedAsRaw([]byte(tt.data))
			if err != nil || !bytes.Equal(want, []byte(tt.data)) {
				t.Errorf("%.40q is called safe, but json.Marshal makes %q, %v of it", tt.data, want, err)
			}
		}
	}
}

// TestMarshalDataIsCompactSafe: the audit data dispatch writes takes the
// fast path.
func TestMarshalDataIsCompactSafe(t *testing.T) {
	for i, d := range dataSamples {
		b, err := MarshalData(d)
		if err != nil {
			t.Fatal(err)
		}
		if !compactSafe(b) {
			t.Errorf("sample %d: MarshalData's %s is not compactSafe", i, b)
		}
	}
}

// FuzzCompactSafe: data called safe is valid JSON that json.Marshal leaves
// byte for byte as it is, and JSON MarshalData wrote is always called safe.
func FuzzCompactSafe(f *testing.F) {
	for _, s := range []string{`{"a":[1,"x",null]}`, `{"a": 1}`, `"<&>"`, "\"\xe2\x80\xa8\"", `[1e5,-0.0,"\u00e9"]`, `{"a":tru}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if compactSafe(data) {
			want, err := compactedAsRaw(data)
			if err != nil || !bytes.Equal(want, data) {
				t.Fatalf("%q is called safe, but json.Marshal makes %q, %v of it", data, want, err)
			}
		}
		var v any
		if json.Unmarshal(data, &v) != nil {
			return
		}
		enc, err := MarshalData(map[string]any{"v": v})
		if err == nil && !compactSafe(enc) {
			t.Fatalf("MarshalData's %q is not called safe", enc)
		}
	})
}

// BenchmarkEncodeEvent is the encoding of one tool.call event at submit.
func BenchmarkEncodeEvent(b *testing.B) {
	ev := benchEvent
	ev.Time = ev.Time.UTC()
	b.ReportAllocs()
	for b.Loop() {
		if _, err := encodeEvent(ev); err != nil {
			b.Fatal(err)
		}
	}
}
