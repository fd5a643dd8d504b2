package dispatch

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"demiurge.dev/host/redact"
)

// plainAttacks are structured results whose secrets hide behind JSON's
// spellings: a token after or before each short escape (the escape's
// letter stands beside the anchor in the text, a control byte in the
// decoded string), an anchor or a secret name spelled with \u escapes or
// surrogate pairs, a token split between two fields or cut by an escape,
// a token in a key, a secret name that differs by case. Each must either
// not be called plain or, called plain, be what the walk gives.
var plainAttacks = func() []string {
	const tok = "ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"
	var out []string
	for _, esc := range []string{`\n`, `\t`, `\r`, `\b`, `\f`, `\/`, `\\`, `\"`} {
		out = append(out,
			`{"a":"x`+esc+tok+`"}`, `{"a":"`+tok+esc+`y"}`, `{"`+esc+tok+`":1}`,
			`{"a":"Bearer`+esc+`abcdefghijklmnopqrstuvwxyz0123"}`,
			`{"a":"aws_secret_access_key=`+esc+`AbCdEfGhIjKlMnOpQrStUvWxYz0123456789abcd"}`,
			`{"a":"gh`+esc+`p_0123456789abcdefghijklmnopqrstuvwxyzAB"}`,
		)
	}
	return append(out,
		`{"a":"\u0067hp_0123456789abcdefghijklmnopqrstuvwxyzAB"}`,
		`{"a":"gh\u0070_0123456789abcdefghijklmnopqrstuvwxyzAB"}`,
		`{"a":"AKIA\u0049OSFODNN7EXAMPLE"}`,
		`{"p\u0061ssword":"x"}`, `{"PASSWORD":"x"}`, `{"Api_Key":"x"}`, `{"pass\/word":"x"}`,
		`{"a":"\ud83d\ude00ghp_0123456789abcdefghijklmnopqrstuvwxyzAB"}`,
		`{"a":"ghp_0123456789abcdefghij","b":"klmnopqrstuvwxyzAB"}`,
		`{"a":["ghp_0123456789abcdefghij","klmnopqrstuvwxyzAB"]}`,
		`{"a":"hooks.slack.com\/services\/TABCDEFG\/BABCDEFG\/abcdefghijklmnopqrstuvwx"}`,
		`{"a":"https:\/\/hooks.slack.com\/services\/TABCDEFG\/BABCDEFG\/abcdefghijklmnopqrstuvwx"}`,
		`{"a":"-----BEGIN RSA PRIVATE KEY-----\nMIIB\n-----END RSA PRIVATE KEY-----"}`,
		`{"a":"eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c"}`,
		`{"a":1.5e3,"AKIAIOSFODNN7EXAMPLE":true}`,
		`{"a":"bad `+"\xed\xa0\x80"+` surrogate"}`,
	)
}()

// TestStructuredPlainAttacks: no spelling of a token or a secret name
// gets a structured result past redaction on the plain shortcut, and
// every one the shortcut keeps is what the walk gives.
func TestStructuredPlainAttacks(t *testing.T) {
	plains := 0
	for _, in := range plainAttacks {
		checkFastObject(t, []byte(in))
		m, plain := structuredObject([]byte(in))
		if m == nil {
			continue
		}
		if plain {
			plains++
		}
		v := redact.Make(redact.Raw{Tool: "t", Content: "c", Structured: m, StructuredPlain: plain}, nil)
		walked := redact.Make(redact.Raw{Tool: "t", Content: "c", Structured: m}, nil)
		if !reflect.DeepEqual(v.Record(), walked.Record()) {
			t.Errorf("%s (plain %v): kept %v, walked %v", in, plain, v.Record()["structured"], walked.Record()["structured"])
		}
		// A whole token in a decoded string never survives (a token the
		// escapes cut is not one, and the walk keeps it too).
		b, _ := json.Marshal(v.Record())
		for _, leak := range []string{"ghp_0123456789abcdefghijklmnopqrstuvwxyzAB", "AKIAIOSFODNN7EXAMPLE", "SflKxwRJSMeKKF2QT4fwpMeJf36POk6yJV_adQssw5c", "https://hooks.slack.com/services"} {
			if strings.Contains(string(b), leak) {
				t.Errorf("%s (plain %v): %q survived: %s", in, plain, leak, v.Record()["structured"])
			}
		}
	}
	t.Logf("%d attacks, %d decoded as plain", len(plainAttacks), plains)
}

func FuzzStructuredPlainAttacks(f *testing.F) {
	for _, in := range plainAttacks {
		f.Add([]byte(in))
	}
	f.Fuzz(func(t *testing.T, b []byte) { checkFastObject(t, b) })
}

// TestDeferredStructuredIsTheDecoded: a structured result read but not
// decoded (setStructured defers the plain ones) gives the views the
// object decoded at once gives, in a call without secrets (kept as it
// is) and in one with an exact secret (Make decodes it and redacts it):
// the record, the event, the card, the exit code.
func TestDeferredStructuredIsTheDecoded(t *testing.T) {
	const value = "s3cr3t-value-0123"
	secret := redact.Secret{Target: "api", Value: value, Source: "binding"}
	ins := append([]string{
		structuredCorpus[len(structuredCorpus)-1],
		`{"a":"` + value + `","exit_code":3}`, `{"exit_code":0,"b":[1,{"c":"x ` + value + `"}]}`,
		`{"exit_code":1,"exit_code":0,"k":"v","k":"w"}`, `{"exit_code":"1"}`,
	}, plainAttacks...)
	deferred := 0
	for _, in := range ins {
		m, plain := structuredObject([]byte(in))
		for _, secrets := range [][]redact.Secret{nil, {secret}} {
			raw := redact.Raw{Tool: "t", Content: "c"}
			setStructured(&raw, []byte(in))
			if raw.Deferred != nil {
				deferred++
			}
			got := redact.Make(raw, secrets)
			want := redact.Make(redact.Raw{Tool: "t", Content: "c", Structured: m, StructuredPlain: plain}, secrets)
			gotCode, gotOK := got.ExitCode()
			wantS, _ := want.Structured().(map[string]any)
			wantCode, wantOK := redact.ExitCode(wantS)
			if !reflect.DeepEqual(got.Record(), want.Record()) || !reflect.DeepEqual(got.Event.Map(), want.Event.Map()) ||
				got.Card != want.Card || gotCode != wantCode || gotOK != wantOK {
				t.Errorf("%s (secrets %v, deferred %v): record %v, event %v, card %+v, exit %d %v; decoded at once: %v, %v, %+v, %d %v",
					in, secrets != nil, raw.Deferred != nil, got.Record(), got.Event.Map(), got.Card, gotCode, gotOK,
					want.Record(), want.Event.Map(), want.Card, wantCode, wantOK)
			}
			if b, _ := json.Marshal(got.Record()); secrets != nil && strings.Contains(string(b), value) {
				t.Errorf("%s: the secret survived a deferred result: %s", in, b)
			}
		}
	}
	if deferred == 0 {
		t.Fatal("no result was deferred: the test tests nothing")
	}
}
