package mcp

import (
	"encoding/json"
	"strings"
	"testing"

	"demiurge.dev/host/core"
)

// structuredSpellings are structured contents holding a declared value
// as JSON may spell it: as it is, with a character as a \u escape (as
// Python's json.dumps writes anything past ASCII), with its slash as \/
// (as PHP's json_encode writes one), with its quote and backslash
// escaped (as every encoder must), in a key, nested, and with HTML
// characters as \u0026 (as json.Marshal writes them), and in a number
// (which then stands as the marker's string: the rest is kept).
func structuredSpellings() (secrets []core.KV, docs []string) {
	secrets = []core.KV{
		{Key: "TOKEN", Value: "s3cr3t-value-42"},
		{Key: "SLASHED", Value: "ab/cd+ef/0123456789"},
		{Key: "QUOTED", Value: `pa"ss\word-77`},
		{Key: "AMP", Value: "x&y<z>-secret-99"},
		{Key: "ACCENT", Value: "clé-secrète-55"},
		{Key: "PIN", Value: "90210555"},
	}
	docs = []string{
		`{"k":"s3cr3t-value-42"}`,
		`{"k":"s3cr3t\u002dvalue-42"}`,
		`{"k":"\u0073\u0033cr3t-value-42"}`,
		`{"s3cr3t\u002dvalue-42":1}`,
		`{"a":[{"b":"x s3cr3t-v\u0061lue-42 y"}]}`,
		`{"k":"ab\/cd+ef\/0123456789"}`,
		`{"k":"pa\"ss\\word-77"}`,
		`{"k":"pa\u0022ss\u005cword-77"}`,
		`{"k":"x\u0026y\u003cz\u003e-secret-99"}`,
		`{"k":"x&y<z>-secret-99"}`,
		`{"k":"cl\u00e9-secr\u00e8te-55"}`,
		`{"k":"clé-secrète-55"}`,
		`{"zip":90210555,"n":[1,2.5e3,190210555.5]}`,
		`{"zip":90210555,"k":"a\\b"}`,
		`{"k":"line\nline","t":"s3cr3t-value-42","u":"\u00e9"}`,
	}
	return secrets, docs
}

// TestStructuredContentHidesEveryDeclaredSpelling: a value the server's
// declaration holds (env, headers, URL query) is replaced in the
// structured content however the server's JSON spells it, as it is in the
// text content: the structured content the host hands on, decoded, holds
// none of them. Before, the values were replaced in the JSON text byte
// for byte, so any escape in a value (a \u, a \/, and always a quote or a
// backslash) let it through to the views, the record and the audit.
func TestStructuredContentHidesEveryDeclaredSpelling(t *testing.T) {
	secrets, docs := structuredSpellings()
	a := &Adapter{conn: &conn{plan: &plan{secrets: knownSecrets(core.MCPServer{Env: secrets})}}}
	for _, doc := range docs {
		raw := `{"content":[{"type":"text","text":"x"}],"structuredContent":` + doc + `}`
		ans, _, err := readAnswer(json.RawMessage(raw))
		if err != nil {
			t.Fatal(err)
		}
		out := a.result(ans)
		var v any
		if err := json.Unmarshal(out.Structured, &v); err != nil {
			t.Fatalf("%s: the structured content handed on is not JSON: %q", doc, out.Structured)
		}
		decoded, _ := json.Marshal(v)
		if strings.Contains(string(decoded), "90210555") {
			t.Errorf("%s: PIN survived in a number: %s", doc, decoded)
		}
		var texts []string
		collectStrings(v, &texts)
		for _, s := range secrets {
			for _, txt := range texts {
				if strings.Contains(txt, s.Value) {
					t.Errorf("%s: %s survived in the structured content handed on: %s", doc, s.Key, decoded)
				}
			}
		}
	}
}

// collectStrings gathers every key and string of a decoded JSON value.
func collectStrings(v any, out *[]string) {
	switch v := v.(type) {
	case string:
		*out = append(*out, v)
	case map[string]any:
		for k, e := range v {
			*out = append(*out, k)
			collectStrings(e, out)
		}
	case []any:
		for _, e := range v {
			collectStrings(e, out)
		}
	}
}

// BenchmarkStructuredRedacted: a 4 KiB structured result of a server with
// a declared value, with escapes (the long way) and without (one scan).
func BenchmarkStructuredRedacted(b *testing.B) {
	secrets := knownSecrets(core.MCPServer{Env: []core.KV{{Key: "TOKEN", Value: "s3cr3t-value-42"}}})
	for _, tc := range []struct{ name, line string }{{"escaped", `line of text\n`}, {"plain", `line of text `}} {
		js := []byte(`{"path":"a.txt","content":"` + strings.Repeat(tc.line, 4096/len(tc.line)) + `","lines":300,"truncated":false}`)
		b.Run(tc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				structuredRedacted(secrets, js)
			}
		})
	}
}

// FuzzStructuredRedacted: for any valid JSON text, what the adapter hands
// on is valid JSON with no declared value in any key or string, nor in a
// number's text.
func FuzzStructuredRedacted(f *testing.F) {
	secrets, docs := structuredSpellings()
	for _, d := range docs {
		f.Add(d)
	}
	rep := knownSecrets(core.MCPServer{Env: secrets})
	f.Fuzz(func(t *testing.T, doc string) {
		if !json.Valid([]byte(doc)) {
			return
		}
		out := structuredRedacted(rep, []byte(doc))
		var v any
		d := json.NewDecoder(strings.NewReader(string(out)))
		d.UseNumber()
		if err := d.Decode(&v); err != nil {
			t.Fatalf("%q handed on as %q: %v", doc, out, err)
		}
		var texts []string
		collectStrings(v, &texts)
		collectNumbers(v, &texts)
		for _, s := range secrets {
			for _, txt := range texts {
				if strings.Contains(txt, s.Value) {
					t.Fatalf("%q: %s survived: %q", doc, s.Key, out)
				}
			}
		}
	})
}

// collectNumbers gathers the text of every number of a value decoded
// with UseNumber.
func collectNumbers(v any, out *[]string) {
	switch v := v.(type) {
	case json.Number:
		*out = append(*out, string(v))
	case map[string]any:
		for _, e := range v {
			collectNumbers(e, out)
		}
	case []any:
		for _, e := range v {
			collectNumbers(e, out)
		}
	}
}
