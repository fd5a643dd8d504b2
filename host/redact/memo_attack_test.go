package redact

import (
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"testing"
)

// longText is a text past memoMin holding the given values.
func longText(tag string, values ...string) string {
	return tag + ": " + strings.Repeat("filler ", 20) + strings.Join(values, " and ") + " " + strings.Repeat("tail ", 5)
}

// TestMemoSlotsNeverCarryAnotherCallsSecret: the redactor's four slots
// remember texts by input within one call; texts past the slots, texts
// that repeat, and the same texts in calls with other secrets (in turn
// and at once, on goroutines sharing the inputs) are each redacted with
// their own call's values, as TextOf redacts them one by one.
func TestMemoSlotsNeverCarryAnotherCallsSecret(t *testing.T) {
	secrets := []string{"alphaSECRET1", "bravoSECRET22", "charlieSECRET333", "deltaSECRET4444"}
	// Every text holds every value: only the call's own ones may go.
	texts := make([]string, 7)
	for i := range texts {
		texts[i] = longText(fmt.Sprint("t", i), secrets...)
	}
	structured := map[string]any{}
	for i, s := range texts {
		structured[fmt.Sprint("k", i)] = []any{s, s} // repeated: a slot's hit
	}
	raw := Raw{
		Tool: "t", Content: texts[0], ModelOutput: texts[1], HasModelOutput: true,
		DisplayOutput: texts[0], HasDisplayOutput: true, ErrorText: texts[2],
		Structured: structured, StructuredPlain: true,
	}
	check := func(t *testing.T, own int) {
		t.Helper()
		given := []Secret{{Source: "binding", Target: fmt.Sprint("S", own), Value: secrets[own]}}
		v := Make(raw, given)
		if v.Failed {
			t.Fatal("redaction failed")
		}
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(b), secrets[own]) {
			t.Fatalf("call %d: its own value survived", own)
		}
		for i, s := range secrets {
			if i != own && !strings.Contains(string(b), s) {
				t.Fatalf("call %d: another call's value %q was replaced: a slot carried it", own, s)
			}
		}
		st := v.Structured().(map[string]any)
		for i, s := range texts {
			want := TextOf(s, given)
			for _, got := range st[fmt.Sprint("k", i)].([]any) {
				if got != want {
					t.Fatalf("call %d, text %d: %q, TextOf gives %q", own, i, got, want)
				}
			}
		}
		if got, want := v.Model.String(), TextOf(texts[1], given); got != want {
			t.Fatalf("call %d: model %q, want %q", own, got, want)
		}
	}
	for round := 0; round < 3; round++ {
		for own := range secrets {
			check(t, own)
		}
	}
	var wg sync.WaitGroup
	for g := 0; g < 16; g++ {
		wg.Add(1)
		go func(own int) {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				check(t, own)
			}
		}(g % len(secrets))
	}
	wg.Wait()
}

// TestSecretsThatOverlap: a value that is a prefix, a suffix or the
// middle of another is replaced wherever either stands, the longer first,
// in a long text (the memo's) and a short one, in strings, keys and
// numbers of a structured result; no value survives whole (two that
// overlap in the text leave a piece of the second: "1234efgh5678" is
// MID's marker and "5678").
func TestSecretsThatOverlap(t *testing.T) {
	given := []Secret{
		{Source: "binding", Target: "LONG", Value: "abcd1234efgh5678"},
		{Source: "binding", Target: "PRE", Value: "abcd1234"},
		{Source: "env", Target: "SUF", Value: "efgh5678"},
		{Source: "session", Target: "MID", Value: "1234efgh"},
		{Source: "binding", Target: "NUM", Value: "90210"},
	}
	short := "x abcd1234efgh5678 abcd1234 efgh5678 1234efgh abcd1234efgh y"
	structured := map[string]any{
		"abcd1234efgh5678": short, "n": 1902105.0, "s": longText("s", short),
		"list": []any{"efgh5678abcd1234", longText("l", "1234efgh5678")},
	}
	for _, plain := range []bool{false, true} {
		v := Make(Raw{Tool: "t", Content: longText("c", short), Structured: structured, StructuredPlain: plain}, given)
		b, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range given {
			if strings.Contains(string(b), s.Value) {
				t.Errorf("plain %v: %q survived: %s", plain, s, b)
			}
		}
	}
}
