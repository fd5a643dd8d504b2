package dispatch

import (
	"context"
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

func TestStructuredObject(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want map[string]any
	}{
		{``, nil},
		{`{}`, map[string]any{}},
		{`{"n":3,"s":"x","b":true,"z":null,"a":[1,"two",{"k":false}],"o":{"p":1.5e3}}`,
			map[string]any{"n": 3.0, "s": "x", "b": true, "z": nil, "a": []any{1.0, "two", map[string]any{"k": false}}, "o": map[string]any{"p": 1500.0}}},
		{`{"k":1,"k":2}`, map[string]any{"k": 2.0}}, // the last of a repeated key wins
		{` {"k":"\u00e9\ud83d\ude00"} `, map[string]any{"k": "é😀"}},
		{`null`, nil},
		{`[1,2]`, nil},
		{`42`, nil},
		{`"text"`, nil},
		{`{"k":1`, nil},
		{`{"k":1} x`, nil},
		{`{"k":1e400}`, nil}, // out of float64 range: encoding/json refuses it
	} {
		if got, _ := structuredObject([]byte(tc.in)); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("structuredObject(%q) = %#v, want %#v", tc.in, got, tc.want)
		}
	}
}

// TestStructuredResultReachesTheRecord: a plugin's structured result is
// decoded and kept, redacted, in the durable record view.
func TestStructuredResultReachesTheRecord(t *testing.T) {
	h := newHarness(t)
	if err := os.WriteFile(filepath.Join(h.ws, "small.txt"), []byte("one\ntwo\nthree\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	turn := h.turn(t, []string{"fs.read"}, nil, h.source(t, "coding", codingMeta))
	out := turn.Call(context.Background(), ToolCall{ID: "s1", Name: "read_file", Args: []byte(`{"path":"small.txt"}`)})
	if !out.OK() {
		t.Fatal(out.Status, out.Views.Model.String())
	}
	s, ok := out.Views.Record()["structured"].(map[string]any)
	if !ok || s["total_lines"] != 3.0 || s["path"] != "small.txt" {
		t.Fatalf("record's structured view = %#v", out.Views.Record()["structured"])
	}
}
