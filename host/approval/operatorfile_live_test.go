package approval

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/catalog"
)

// TestTheOperatorsApprovalsFileCountsAsItIsNow: a long-lived host's
// resolver reads the approvals file at each decision (when it changed),
// so a rule the operator removed no longer allows, a deny added denies,
// and a file that became writable by others refuses every call instead
// of being decided without.
func TestTheOperatorsApprovalsFileCountsAsItIsNow(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demiurge")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, OperatorFileName)
	write := func(body string) {
		t.Helper()
		if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	write("approve: [allow:terminal]\n")
	loaded, err := LoadOperatorFile(file)
	if err != nil {
		t.Fatal(err)
	}
	r := &Resolver{Rules: loaded, OperatorFile: &LiveOperatorFile{File: file}}
	req := Request{Tool: "terminal", Policy: catalog.ApprovalPrompt}
	decide := func() Outcome {
		t.Helper()
		out, err := r.Resolve(context.Background(), req)
		if err != nil {
			t.Fatal(err)
		}
		return out
	}
	if out := decide(); !out.Allowed || out.Via != ViaRule {
		t.Fatalf("with allow:terminal in the file: %+v", out)
	}
	write("approve: []\n")
	if out := decide(); out.Allowed {
		t.Fatalf("the rule was removed from the file, yet: %+v", out)
	}
	write("approve: [allow:terminal, deny:terminal]\n")
	if out := decide(); out.Allowed || !strings.Contains(out.Reason, "denied by rule deny:terminal (approvals.yaml)") {
		t.Fatalf("a deny added to the file: %+v", out)
	}
	write("approve: [allow:terminal]\n")
	if err := os.Chmod(file, 0o666); err != nil {
		t.Fatal(err)
	}
	if out := decide(); out.Allowed || !strings.Contains(out.Reason, "writable by others") {
		t.Fatalf("a file writable by others: %+v", out)
	}
	if err := os.Chmod(file, 0o600); err != nil {
		t.Fatal(err)
	}
	if out := decide(); !out.Allowed {
		t.Fatalf("the file made the operator's again: %+v", out)
	}
	if err := os.Remove(file); err != nil {
		t.Fatal(err)
	}
	if out := decide(); out.Allowed {
		t.Fatalf("the file removed, its rule still allows: %+v", out)
	}
}

// TestAnApprovalsFileOfMoreThanOneDocumentIsRefused: the YAML decoder
// reads the first document only; a deny rule in a second one counted for
// nothing (and `approvals add` dropped it). Such a file is refused whole.
func TestAnApprovalsFileOfMoreThanOneDocumentIsRefused(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demiurge")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, OperatorFileName)
	for _, body := range []string{
		"approve: [allow:read_file]\n---\napprove: [deny:terminal]\n",
		"approve: [allow:read_file]\n...\napprove: [deny:terminal]\n",
		"approve: [allow:read_file]\n...\ngarbage: [\n",
		"approve: [allow:read_file]\n---\n",
	} {
		if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if rules, err := LoadOperatorFile(file); err == nil || !strings.Contains(err.Error(), "more than one YAML document") {
			t.Errorf("%q: %v, %v", body, rules, err)
		}
		if _, err := EditOperatorFile(file, "allow:patch", true); err == nil {
			t.Errorf("%q: approvals add rewrote it", body)
		}
	}
	for _, body := range []string{"approve: [allow:read_file]\n", "---\napprove: [allow:read_file]\n", "# nothing\n", ""} {
		if err := os.WriteFile(file, []byte(body), 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := LoadOperatorFile(file); err != nil {
			t.Errorf("%q: %v", body, err)
		}
	}
}

// TestAnApprovalsFileMadeLaterCounts: a host started before the operator
// wrote any approvals file reads the one written later, and its rules
// count from the next decision (a file made, not only one edited).
func TestAnApprovalsFileMadeLaterCounts(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demiurge")
	if err := os.Mkdir(dir, 0o700); err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(dir, OperatorFileName)
	loaded, err := LoadOperatorFile(file)
	if err != nil || len(loaded) != 0 {
		t.Fatalf("no file yet: %v rules, %v", loaded, err)
	}
	r := &Resolver{Rules: loaded, OperatorFile: &LiveOperatorFile{File: file}}
	req := Request{Tool: "terminal", Policy: catalog.ApprovalPrompt}
	if out, err := r.Resolve(context.Background(), req); err != nil || out.Allowed {
		t.Fatalf("with no file and no one to ask: %+v, %v", out, err)
	}
	if err := os.WriteFile(file, []byte("approve: [allow:terminal]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := r.Resolve(context.Background(), req); err != nil || !out.Allowed || out.Via != ViaRule {
		t.Fatalf("the file written with allow:terminal: %+v, %v", out, err)
	}
}
