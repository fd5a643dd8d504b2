package redact

import (
	"bytes"
	"encoding/json"
	"testing"
	"unsafe"
)

// TestModelViewIsItsPartsJoined: every way a reader takes the model view
// (one string, its length, as JSON) gives Head + Body
// + Tail, and a view with no envelope is its text itself, not a copy.
func TestModelViewIsItsPartsJoined(t *testing.T) {
	for _, m := range []ModelView{
		{},
		ModelText("plain result"),
		{Head: "<untrusted-data origin=\"mcp:docs\" boundary=\"B\" screening=\"clean\">\n", Body: "data \xff\"quoted\"\n", Tail: "</untrusted-data boundary=\"B\">"},
		{Head: "h\n", Body: "", Tail: "\nt"},
		{Head: "", Body: "b", Tail: "\nt"},
		{Head: "h", Body: "b\u2028<script>&", Tail: ""},
	} {
		want := m.Head + m.Body + m.Tail
		if got := m.String(); got != want {
			t.Errorf("%+v: String %q, want %q", m, got, want)
		}
		if m.Len() != len(want) {
			t.Errorf("%+v: Len %d, want %d", m, m.Len(), len(want))
		}
		got, err := json.Marshal(m)
		wantJSON, _ := json.Marshal(want)
		if err != nil || !bytes.Equal(got, wantJSON) {
			t.Errorf("%+v: JSON %s, want %s", m, got, wantJSON)
		}
	}
	text := "a result of some length"
	if s := ModelText(text).String(); unsafe.StringData(s) != unsafe.StringData(text) {
		t.Error("a model view without an envelope was copied")
	}
}
