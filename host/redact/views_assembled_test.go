package redact

import (
	"encoding/json"
	"reflect"
	"testing"
)

// TestRecordAndDebugViewsAreEventPlusTheirOwn pins what the record and
// debug views carry, field for field, now that they are assembled when
// read: the record is the event plus args_preview and content, and
// model_output, display_output, error and structured exactly when the
// result had them; the debug view is the event plus secret_fingerprints.
// Nothing else, in any of the sixteen combinations.
func TestRecordAndDebugViewsAreEventPlusTheirOwn(t *testing.T) {
	for mask := 0; mask < 16; mask++ {
		raw := Raw{Tool: "read_file", CallID: "c1", Args: map[string]any{"path": "a.txt", "token": "tok-12345678"}, Content: "body"}
		want := map[string]any{"content": "body"}
		if mask&1 != 0 {
			raw.ModelOutput, raw.HasModelOutput, want["model_output"] = "for the model", true, "for the model"
		}
		if mask&2 != 0 {
			raw.DisplayOutput, raw.HasDisplayOutput, want["display_output"] = "for the card", true, "for the card"
		}
		if mask&4 != 0 {
			raw.ErrorText, want["error"] = "it went wrong", "it went wrong"
		}
		if mask&8 != 0 {
			raw.Structured = map[string]any{"size": 4.0}
			want["structured"] = raw.Structured
		}
		v := Make(raw, nil)
		if v.Failed {
			t.Fatalf("mask %d: redaction failed", mask)
		}
		want["args_preview"] = v.Card.Args
		rec := v.Record()
		for k, val := range v.Event.Map() {
			if !reflect.DeepEqual(rec[k], val) {
				t.Errorf("mask %d: record[%s] = %#v, event's %#v", mask, k, rec[k], val)
			}
		}
		for k, val := range want {
			if !reflect.DeepEqual(rec[k], val) {
				t.Errorf("mask %d: record[%s] = %#v, want %#v", mask, k, rec[k], val)
			}
		}
		if len(rec) != v.Event.Len()+len(want) || v.Event.Len() != metaFields {
			t.Errorf("mask %d: record has %d fields (event %d), want %d: %v", mask, len(rec), v.Event.Len(), metaFields+len(want), rec)
		}
		if got, want := v.Structured(), rec["structured"]; !reflect.DeepEqual(got, want) {
			t.Errorf("mask %d: Structured() = %#v, record's %#v", mask, got, want)
		}
		debug := v.Debug()
		if fps, _ := debug["secret_fingerprints"].([]map[string]string); len(fps) != 1 || fps[0]["source"] != "arg:token" {
			t.Errorf("mask %d: debug fingerprints %#v", mask, debug["secret_fingerprints"])
		}
		delete(debug, "secret_fingerprints")
		if !reflect.DeepEqual(debug, v.Event.Map()) {
			t.Errorf("mask %d: debug view beyond its fingerprints %v, want the event %v", mask, debug, v.Event.Map())
		}
	}
}

// TestLaterEventFieldsReachRecordAndDebug: a field added to the event
// view after Make (an output policy, the screening verdict) is in the
// record and debug views read afterwards; one added by WithDebug is in the
// debug view alone; a change to a map Record or Debug returned is not kept.
func TestLaterEventFieldsReachRecordAndDebug(t *testing.T) {
	v := Make(Raw{Tool: "fetch", CallID: "c2", Content: "page"}, nil)
	v.Event.Set("screening", map[string]any{"verdict": "clean"})
	for name, m := range map[string]map[string]any{"record": v.Record(), "debug": v.Debug()} {
		if !reflect.DeepEqual(m["screening"], v.Event.Get("screening")) {
			t.Errorf("%s view: screening %#v", name, m["screening"])
		}
	}
	w := v.WithDebug("error", "disk full")
	if w.Debug()["error"] != "disk full" || v.Debug()["error"] != nil || w.Record()["error"] != nil || w.Event.Get("error") != nil {
		t.Errorf("WithDebug: debug %v, record %v, event %v, original's debug %v", w.Debug(), w.Record(), w.Event.Map(), v.Debug())
	}
	v.Record()["content"], v.Debug()["tool"] = "changed", "changed"
	if v.Record()["content"] != "page" || v.Debug()["tool"] != "fetch" {
		t.Error("a change to a returned view was kept")
	}
}

// TestFailedAndHandBuiltViews: a failed result's record and debug views
// are the fixed failed map, each its own copy; views made without Make
// (only a model view and a card) have no record or debug view, as before.
func TestFailedAndHandBuiltViews(t *testing.T) {
	f := failedViews()
	fixed := map[string]any{"result": FailedText, "redaction_failed": true}
	for name, m := range map[string]map[string]any{"event": f.Event.Map(), "record": f.Record(), "debug": f.Debug()} {
		if !reflect.DeepEqual(m, fixed) {
			t.Errorf("failed %s view = %v", name, m)
		}
	}
	f.Record()["x"] = 1
	if _, ok := f.Event.Map()["x"]; ok {
		t.Error("the failed record view shares the event's map")
	}
	if h := (Views{Model: ModelText("m"), Card: Card{Body: "m"}}); h.Record() != nil || h.Debug() != nil || h.Structured() != nil {
		t.Errorf("hand-built views: record %v, debug %v", h.Record(), h.Debug())
	}
}

// TestViewsEncodeAllFive: Views encode as the five fields they always
// did (the leak tests search that encoding for secrets).
func TestViewsEncodeAllFive(t *testing.T) {
	v := Make(Raw{Tool: "read_file", CallID: "c3", Content: "text", Structured: map[string]any{"n": 1.0}}, nil)
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]json.RawMessage
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	want := map[string]any{"Model": v.Model.String(), "Card": v.Card, "Event": v.Event.Map(), "Record": v.Record(), "Debug": v.Debug(), "Failed": false}
	if len(got) != len(want) {
		t.Fatalf("encoded fields %s", b)
	}
	for k, val := range want {
		w, _ := json.Marshal(val)
		if string(got[k]) != string(w) {
			t.Errorf("%s encoded %s, want %s", k, got[k], w)
		}
	}
}

// TestSizesAppendJSONMatchesMap: the audit's direct writer writes the
// sizes field as encoding/json writes its map form, in every combination
// of the optional sizes.
func TestSizesAppendJSONMatchesMap(t *testing.T) {
	for mask := 0; mask < 8; mask++ {
		s := Sizes{Content: 1234567, Error: 0, ModelOutput: 12, DisplayOutput: 345, StructuredKeys: 6,
			HasModelOutput: mask&1 != 0, HasDisplayOutput: mask&2 != 0, HasStructured: mask&4 != 0}
		want, err := json.Marshal(s.Map())
		if err != nil {
			t.Fatal(err)
		}
		if got := s.AppendJSON(nil); string(got) != string(want) {
			t.Errorf("mask %d: AppendJSON = %s, encoding/json = %s", mask, got, want)
		}
	}
}
