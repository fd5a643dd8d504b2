package argcheck

import (
	"bytes"
	"reflect"
	"strings"
	"testing"
)

// fastSamples are documents decodeFast must take (true) or leave to
// json.Decoder (false); either way the result must be decodeDocument's.
var fastSamples = []struct {
	doc  string
	fast bool
}{
	{`{"text":"hello"}`, true},
	{`{}`, true},
	{" {\n\t\"a\" : [ 1 , -0.5e+10, 2E-3, true, false, null, {}, [] ] ,\r\"b\":{\"c\":\"d\"} } ", true},
	{`{"esc":"q\" b\\ \/ \b\f\n\r\t \u00e9 \ud83d\ude00 \ud800 x"}`, true},
	{"{\"utf8\":\"é 😀\"}", true},
	{"{\"bad\":\"\xff\xfe\",\"\xc0k\":1}", true}, // invalid UTF-8 becomes U+FFFD, as unquoting does
	{`{"big":123456789012345678901234567890}`, true},
	{`{"a":{"a":{"a":[[[[]]]]}}}`, true},
	// Left to the decoder, which refuses them or writes their error.
	{`{"a":1,"a":2}`, false}, {`{"a":1e999}`, false}, {`[]`, false}, {`"x"`, false}, {`1`, false},
	{`{"a":1} {}`, false}, {`{"a":1}x`, false}, {`{"a":}`, false}, {`{"a":1,}`, false}, {`{,}`, false},
	{`{"a" 1}`, false}, {`{a:1}`, false}, {`{"a":01}`, false}, {`{"a":1.}`, false}, {`{"a":.5}`, false},
	{`{"a":-}`, false}, {`{"a":+1}`, false}, {`{"a":1e}`, false}, {`{"a":tru}`, false}, {`{"a":nul}`, false},
	{`{"a":"x`, false}, {`{"a":"\x"}`, false}, {`{"a":"\u12"}`, false}, {"{\"a\":\"\x01\"}", false},
	{`{"a":"\`, false}, {`{"a":[1,]}`, false}, {`{"a":[,1]}`, false}, {`{"a":NaN}`, false},
	{`{` + strings.Repeat(`"a":{`, maxArgumentDepth) + strings.Repeat("}", maxArgumentDepth+1), false},
	{`{"a":` + strings.Repeat("[", maxArgumentDepth-1) + strings.Repeat("]", maxArgumentDepth-1) + "}", true},
	{`{"a":` + strings.Repeat("[", maxArgumentDepth) + strings.Repeat("]", maxArgumentDepth) + "}", false},
}

func TestDecodeFastMatchesDecoder(t *testing.T) {
	for _, s := range fastSamples {
		got, ok := decodeFast([]byte(s.doc))
		if ok != s.fast {
			t.Errorf("decodeFast(%.60q) ok = %v, want %v", s.doc, ok, s.fast)
		}
		checkFastAgainstDecoder(t, []byte(s.doc), got, ok)
	}
}

func checkFastAgainstDecoder(t *testing.T, doc []byte, got map[string]any, ok bool) {
	t.Helper()
	if !ok {
		return
	}
	want, err := decodeDocument(bytes.TrimSpace(doc))
	if err != nil {
		t.Fatalf("decodeFast took %.60q, which the decoder refuses: %v", doc, err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("decodeFast(%.60q) = %#v, decoder %#v", doc, got, want)
	}
}

// FuzzDecodeFast: whatever decodeFast takes, json.Decoder takes too and
// decodes to the same value.
func FuzzDecodeFast(f *testing.F) {
	for _, s := range fastSamples {
		f.Add([]byte(s.doc))
	}
	f.Fuzz(func(t *testing.T, doc []byte) {
		trimmed := bytes.TrimSpace(doc)
		got, ok := decodeFast(trimmed)
		checkFastAgainstDecoder(t, trimmed, got, ok)
	})
}
