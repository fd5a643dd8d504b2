package redact

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	shared "demiurge.dev/shared/redact"
)

// The redaction oracle is what Make must guarantee, checked on any input,
// rather than a copy of the code it checks: no secret survives in any
// view, redaction is idempotent, text with nothing secret in it is left as
// it is, and the anchor scan that lets most text skip the token formats
// never skips a real hit. Concrete examples are in examples_test.go,
// views_test.go and the other tests of this package.

// plainText keeps, of s, lowercase ASCII words of at most five letters
// (no token format, secret-named field or credential prefix is that
// short and plain), separated by spaces and newlines.
func plainText(s string) string {
	var b strings.Builder
	word := 0
	for _, c := range []byte(s) {
		switch {
		case c >= 'a' && c <= 'z' && word < 5:
			b.WriteByte(c)
			word++
		case c == ' ' || c == '\n':
			b.WriteByte(c)
			word = 0
		}
	}
	return b.String()
}

// FuzzNoSecretSurvives: a bound secret and a well-known token, wherever a
// result carries them (arguments, content, model and display output,
// error text, structured result, tool name and call id), appear in no
// view, and every view serialises.
func FuzzNoSecretSurvives(f *testing.F) {
	f.Add(`{"text":"hello"}`, "hello", "", `{"a":1.5}`, "S3cr3t-value", false)
	f.Add(`{"url":"https://a:b@c/?token=d","n":[1,2e30,-0.0]}`, "\xff\xfe <&>", "x=y", `{"ok":true}`, "Pw-12345", true)
	f.Add(`{"a":[{"name":"Authorization","value":"Basic dXNlcjpwYXNz"}]}`, "Authorization: Basic dXNlcjpwYXNz", "", "", "XNlcjpwYXNz1", false)
	f.Add(`{"command":"mysql -u root -psecretpw app","x":"\u2028"}`, "-psecretpw", "err -psecretpw", `[1]`, "Secretpw9", true)
	const token = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"
	f.Fuzz(func(t *testing.T, argsJSON, content, errText, structuredJSON, secret string, isError bool) {
		if len(secret) < shared.MinSecretLen || !utf8.ValidString(secret) || strings.ContainsAny(secret, "<>:\\") ||
			secret[0] < 'G' || secret[0] > 'Z' || !strings.ContainsAny(secret, "0123456789") {
			// Too short to be bound, or text the views are made of: field
			// names, markers, fingerprints and sizes are lowercase words,
			// hex and digits, and JSON's escapes (\u001f, \n) begin with
			// a backslash. A secret here begins with a capital G-Z, holds
			// a digit and no backslash, so finding it in a view is a leak.
			return
		}
		var args map[string]any
		if json.Unmarshal([]byte(argsJSON), &args) != nil {
			args = map[string]any{"raw": argsJSON}
		}
		args["with"] = "x " + secret + " " + token
		var structured map[string]any
		if json.Unmarshal([]byte(structuredJSON), &structured) != nil {
			structured = map[string]any{}
		}
		structured["out"] = []any{secret, map[string]any{"t": token}}
		carry := func(s string) string { return s + " " + secret + " " + token }
		raw := Raw{Tool: carry("t"), CallID: carry(""), Args: args, IsError: isError,
			Content: carry(content), ModelOutput: carry(content + "!"), HasModelOutput: true,
			DisplayOutput: carry("d"), HasDisplayOutput: true, ErrorText: carry(errText), Structured: structured}
		given := []Secret{{Value: secret, Source: "binding:S", Target: "S"}}
		v := Make(raw, given)
		if v.Failed {
			return // every view is the fixed failed text
		}
		text := allText(t, v)
		for _, s := range append([]string{secret, token}, knownSecrets(raw, given)...) {
			if strings.Contains(text, s) {
				t.Fatalf("%q survives in\n%s", s, text)
			}
		}
	})
}

// FuzzRedactionIdempotent: redacting redacted text changes nothing, for
// the text a view holds and for Make's model view made again from it.
func FuzzRedactionIdempotent(f *testing.F) {
	f.Add("use ghp_16C7e42F292c6912E7710c838347Ae178B4a and s3cr3t-value \xff", "s3cr3t-value")
	f.Add("Authorization: Bearer abcdefghijklmnopqrstuvwxyz0123", "abcdefghijklmnop")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, s, secret string) {
		given := []Secret{{Value: secret, Source: "binding:S", Target: "S"}}
		r := newRedactor(given)
		once := r.text(s)
		if twice := newRedactor(given).text(once); twice != once {
			t.Fatalf("text(%q) = %q, and again %q", s, once, twice)
		}
		v := Make(Raw{Tool: "t", Content: s}, given)
		again := Make(Raw{Tool: "t", Content: v.Model.String()}, given)
		if again.Model.String() != v.Model.String() || again.Card.Body != v.Card.Body {
			t.Fatalf("Make of %q: %q, made again %q", s, v.Model.String(), again.Model.String())
		}
	})
}

// FuzzPlainTextUnchanged: text that cannot hold a secret passes through
// every view as it is, and the preview is the arguments' JSON.
func FuzzPlainTextUnchanged(f *testing.F) {
	f.Add("hello world\nfrom the file")
	f.Add("abcdefghijklmnop qrst")
	f.Fuzz(func(t *testing.T, s string) {
		s = plainText(s)
		args := map[string]any{"text": s}
		v := Make(Raw{Tool: "read_file", CallID: "c1", Args: args, Content: s, Structured: map[string]any{"text": s}}, nil)
		if v.Failed || v.Model.String() != s || v.Card.Body != s || v.Record()["content"] != s || v.Card.Title != "read_file" {
			t.Fatalf("plain %q changed: %#v", s, v)
		}
		if st, _ := v.Record()["structured"].(map[string]any); st["text"] != s {
			t.Fatalf("plain %q changed in the structured result: %#v", s, v.Record()["structured"])
		}
		// Plain text has nothing HTML escaping changes: json.Marshal's bytes.
		if want, _ := json.Marshal(args); v.Card.Args != cutText(string(want), DefaultPreviewLimit) {
			t.Fatalf("preview of %q = %s, want %s", s, v.Card.Args, want)
		}
	})
}

// FuzzAnchorScanSound: a token format whose anchor the scan did not find
// has no hit in the text, so skipping it loses nothing; and validUTF8 is
// strings.ToValidUTF8 with U+FFFD.
func FuzzAnchorScanSound(f *testing.F) {
	for _, s := range []string{"", "a", "AKIA", "xx ghp_ SECRET Bearer eyJ", "\xff\xfe ok \uFFFD é", "SG.", "hooks.slack.com",
		"ghp_16C7e42F292c6912E7710c838347Ae178B4a", "bearer abcdefghijklmnopqrstuvwxyz",
		"aws_ſecret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		found, any := candidates(s)
		for i := range tokenTable {
			if !found[i] {
				if out := tokenTable[i].replaceWholeText(s); out != s {
					t.Fatalf("the scan skipped token kind %d, which redacts %q to %q", i, s, out)
				}
			}
		}
		if !any && applyTokens(s) != s {
			t.Fatalf("no anchor found in %q, yet applyTokens changes it", s)
		}
		if got, want := validUTF8(s), strings.ToValidUTF8(s, "\uFFFD"); got != want {
			t.Fatalf("validUTF8(%q) = %q, want %q", s, got, want)
		}
	})
}

// FuzzPlainNumberSound: where the number fast path answers, the long way
// (the number's text through the redactor) would have left the number as
// it is; and no token anchor fits in a number today.
func FuzzPlainNumberSound(f *testing.F) {
	f.Add(1.5, int64(-7), uint64(12))
	f.Add(1e21, int64(1234), uint64(0))
	if !numbersHoldNoToken {
		f.Fatal("a token anchor fits in a number's text: the fast path is off")
	}
	f.Fuzz(func(t *testing.T, x float64, n int64, u uint64) {
		r := newRedactor(nil)
		for _, v := range []any{x, float32(x), n, int(n), int32(n), u, uint32(u)} {
			if !r.plainNumber(v) {
				t.Fatalf("%T %v took the long way without secrets", v, v)
			}
			if s := numberText(v); r.text(s) != s {
				t.Fatalf("the fast path kept %T %v, which redacts to %q", v, v, r.text(s))
			}
		}
		if newRedactor([]Secret{{Value: "12345678", Target: "PIN"}}).plainNumber(x) || r.plainNumber(json.Number("1")) {
			t.Fatal("a call with a secret, or a json.Number, took the fast path")
		}
	})
}
