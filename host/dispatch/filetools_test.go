package dispatch

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"demiurge.dev/host/approval"
)

// write_file, like patch, is prechecked before approval: a write the
// plugin would refuse is refused without asking anyone, and nothing is
// written; a possible write is asked about once and happens.
func TestWriteFilePrecheckRefusesBeforeAnyoneIsAsked(t *testing.T) {
	h := newHarness(t)
	if err := os.Mkdir(filepath.Join(h.ws, "sub"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(filepath.Join(h.ws, "pipe"), 0o644); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(h.ws, "real.txt"), []byte("real\n"), 0o644)
	if err := os.Symlink("real.txt", filepath.Join(h.ws, "link.txt")); err != nil {
		t.Fatal(err)
	}
	p := &answer{a: approval.AllowOnce}
	turn := h.turn(t, []string{"fs.read", "fs.write"}, p, h.source(t, "coding", codingMeta))
	for _, tc := range []struct{ path, want string }{
		{".env", "credential-like"},
		{"sub", "is a directory"},
		{"pipe", "not a regular file"},
		{"link.txt", "symlink"},
		{"missing/x.txt", "create_dirs"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			out := turn.Call(context.Background(), ToolCall{ID: tc.path, Name: "write_file", Args: []byte(`{"path":"` + tc.path + `","content":"x"}`)})
			if out.Status != StatusPrecheckFailed || !strings.Contains(out.Views.Model.String(), tc.want) {
				t.Fatalf("status %s %q, want %s saying %q", out.Status, out.Views.Model.String(), StatusPrecheckFailed, tc.want)
			}
			if p.asked != 0 {
				t.Fatalf("the operator was asked %d times about a write that cannot happen", p.asked)
			}
		})
	}
	if b, _ := os.ReadFile(filepath.Join(h.ws, "real.txt")); string(b) != "real\n" {
		t.Fatalf("real.txt = %q", b)
	}
	out := turn.Call(context.Background(), ToolCall{ID: "ok", Name: "write_file", Args: []byte(`{"path":"new.txt","content":"x"}`)})
	if !out.OK() || p.asked != 1 {
		t.Fatalf("possible write: %s %q, asked %d", out.Status, out.Views.Model.String(), p.asked)
	}
}

// Numbers beyond a tool's bounds are argument errors that name the bound,
// from the schema, not the plugin's JSON decoder.
func TestHugeNumbersAreArgumentErrorsNamingTheBound(t *testing.T) {
	h := newHarness(t)
	os.WriteFile(filepath.Join(h.ws, "f.txt"), []byte("a\n"), 0o644)
	turn := h.turn(t, []string{"fs.read"}, nil, h.source(t, "coding", codingMeta))
	for _, tc := range []struct{ tool, args, want string }{
		{"read_file", `{"path":"f.txt","limit":1e20}`, "at most 10000"},
		{"read_file", `{"path":"f.txt","limit":20000}`, "at most 10000"},
		{"read_file", `{"path":"f.txt","limit":-1}`, "at least 0"},
		{"read_file", `{"path":"f.txt","offset":1e20}`, "at most 2147483647"},
		{"read_file", `{"path":"f.txt","offset":-1e20}`, "at least -2147483647"},
		{"search_files", `{"pattern":"a","max_results":1e20}`, "at most 1000"},
		{"search_files", `{"pattern":"a","context_lines":99}`, "at most 5"},
	} {
		t.Run(tc.args, func(t *testing.T) {
			out := turn.Call(context.Background(), ToolCall{ID: "n", Name: tc.tool, Args: []byte(tc.args)})
			if out.Status != StatusInvalidArguments || !strings.Contains(out.Views.Model.String(), tc.want) || strings.Contains(out.Views.Model.String(), "unmarshal") {
				t.Fatalf("status %s %q, want %s naming %q", out.Status, out.Views.Model.String(), StatusInvalidArguments, tc.want)
			}
		})
	}
}
