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

// saveWhileAsked is an approver who reads the card (its diff) and, while
// deciding, someone saves the file: then it allows.
type saveWhileAsked struct {
	path, save string
	preview    string
	edit       *approval.FileEdit
}

func (p *saveWhileAsked) Name() string { return "scripted" }
func (p *saveWhileAsked) Ask(_ context.Context, r approval.Request) (approval.Answer, error) {
	p.preview = r.Preview
	if r.EditFunc != nil {
		p.edit = r.EditFunc()
	}
	if p.save == "" {
		os.Remove(p.path)
	} else if err := os.WriteFile(p.path, []byte(p.save), 0o644); err != nil {
		return approval.Deny, err
	}
	return approval.AllowOnce, nil
}

// TestAnApprovedWriteLosesNoChangeMadeAfterTheCard: the operator approves
// write_file's diff against the file as shown; a save made meanwhile (an
// editor's, a formatter's) was silently replaced, and the outcome's edit
// reported a change that was not the one made. The write is now bound to
// the content shown: it writes nothing and says why, the save is kept; a
// file created where the card showed a new one is kept too; and a model's
// own expected_sha256 that names other content than the shown is refused.
func TestAnApprovedWriteLosesNoChangeMadeAfterTheCard(t *testing.T) {
	h := newHarness(t)
	a := filepath.Join(h.ws, "a.txt")
	os.WriteFile(a, []byte("v1\n"), 0o644)
	p := &saveWhileAsked{path: a, save: "the user's save\n"}
	turn := h.turn(t, []string{"fs.read", "fs.write"}, p, h.source(t, "coding", codingMeta))
	out := turn.Call(context.Background(), ToolCall{ID: "w", Name: "write_file", Args: []byte(`{"path":"a.txt","content":"model\n"}`)})
	if !strings.Contains(p.preview, "-v1") || p.edit == nil || p.edit.OldText != "v1\n" {
		t.Fatalf("the card did not show the file as it was: %q %+v", p.preview, p.edit)
	}
	if out.OK() || out.Edit != nil || !strings.Contains(out.Views.Model.String(), "nothing was written") {
		t.Fatalf("write over a later save: %s %q edit %+v", out.Status, out.Views.Model.String(), out.Edit)
	}
	if b, _ := os.ReadFile(a); string(b) != "the user's save\n" {
		t.Fatalf("the save was lost: a.txt = %q", b)
	}

	// Shown as a new file; one was created while the card was up.
	b := filepath.Join(h.ws, "b.txt")
	p.path, p.save = b, "made meanwhile\n"
	out = turn.Call(context.Background(), ToolCall{ID: "n", Name: "write_file", Args: []byte(`{"path":"b.txt","content":"model\n"}`)})
	if got, _ := os.ReadFile(b); out.OK() || string(got) != "made meanwhile\n" {
		t.Fatalf("write over a file created meanwhile: %s %q; b.txt = %q", out.Status, out.Views.Model.String(), got)
	}

	// Unchanged while asked: written, and the edit is the one shown.
	p.path, p.save = filepath.Join(h.ws, "c.txt"), "same\n"
	os.WriteFile(p.path, []byte("same\n"), 0o644)
	out = turn.Call(context.Background(), ToolCall{ID: "ok", Name: "write_file", Args: []byte(`{"path":"c.txt","content":"model\n"}`)})
	if got, _ := os.ReadFile(p.path); !out.OK() || string(got) != "model\n" || out.Edit == nil || out.Edit.OldText != "same\n" {
		t.Fatalf("unchanged file: %s %q; c.txt = %q", out.Status, out.Views.Model.String(), got)
	}

}

// TestASecondWriteInABatchIsAskedAboutTheFirstOnesResult: a batch admits
// a write of the same file only after the earlier one ran, so the second
// card shows (and the second write is bound to) the first write's result:
// the binding to the shown content refuses nothing a batch does in order.
func TestASecondWriteInABatchIsAskedAboutTheFirstOnesResult(t *testing.T) {
	h := newHarness(t)
	f := filepath.Join(h.ws, "a.txt")
	os.WriteFile(f, []byte("v1\n"), 0o644)
	p := &answer{a: approval.AllowOnce}
	turn := h.turn(t, []string{"fs.read", "fs.write"}, p, h.source(t, "coding", codingMeta))
	outs := turn.Batch(context.Background(), []ToolCall{
		{ID: "1", Name: "write_file", Args: []byte(`{"path":"a.txt","content":"first\n"}`)},
		{ID: "2", Name: "write_file", Args: []byte(`{"path":"a.txt","content":"second\n"}`)},
	})
	if p.asked != 2 || !outs[0].OK() || !outs[1].OK() || outs[1].Edit == nil || outs[1].Edit.OldText != "first\n" {
		t.Fatalf("asked %d; first %s %q; second %s %q %+v", p.asked, outs[0].Status, outs[0].Views.Model.String(), outs[1].Status, outs[1].Views.Model.String(), outs[1].Edit)
	}
	if b, _ := os.ReadFile(f); string(b) != "second\n" {
		t.Fatalf("a.txt = %q", b)
	}
}
