package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTerminalOutputCapIsShown: past the operator's cap the artifact
// keeps the first bytes, and the model view and the card say how many
// were dropped.
func TestTerminalOutputCapIsShown(t *testing.T) {
	c := newTerminalCall(t)
	ctx := c.ctx(nil)
	ctx.OutputCap = 1000
	res, err := c.tool.Execute(ctx, json.RawMessage(`{"command":"head -c 5000 /dev/zero | tr '\\0' a; echo small >&2"}`))
	if err != nil {
		t.Fatal(err)
	}
	var model map[string]any
	if err := json.Unmarshal([]byte(res.Content), &model); err != nil {
		t.Fatalf("model view: %v\n%s", err, res.Content)
	}
	note, _ := model["note"].(string)
	if !strings.Contains(note, "stdout: 4000 bytes past the output cap of 1000 bytes were dropped") || strings.Contains(note, "stderr:") {
		t.Fatalf("model note %q", note)
	}
	if d := *res.DisplayOutput; !strings.Contains(d, "stdout: 4000 bytes past the output cap of 1000 bytes were dropped") {
		t.Fatalf("card does not say what was dropped:\n%s", d)
	}
	b, _ := json.Marshal(res.Structured)
	var st struct {
		Stdout struct {
			Bytes        int64  `json:"bytes"`
			DroppedBytes int64  `json:"dropped_bytes"`
			CapBytes     int64  `json:"cap_bytes"`
			Artifact     string `json:"artifact"`
		} `json:"stdout"`
	}
	if err := json.Unmarshal(b, &st); err != nil {
		t.Fatal(err)
	}
	if st.Stdout.Bytes != 5000 || st.Stdout.DroppedBytes != 4000 || st.Stdout.CapBytes != 1000 {
		t.Fatalf("structured stdout %+v", st.Stdout)
	}
	got, err := os.ReadFile(filepath.Join(c.artifacts, st.Stdout.Artifact))
	if err != nil || string(got) != strings.Repeat("a", 1000) {
		t.Fatalf("artifact holds %d bytes, %v; want the first 1000", len(got), err)
	}
}
