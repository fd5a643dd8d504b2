package shellguard

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestTable(t *testing.T) {
	if len(table) < 200 {
		t.Fatalf("the table has %d rows; it must keep at least 200", len(table))
	}
	seen := map[string]bool{}
	for _, r := range table {
		if seen[r.cmd] {
			t.Errorf("duplicate row %q", r.cmd)
		}
		seen[r.cmd] = true
		v := Check(r.cmd, tableOptions)
		if v.Decision != r.decision || v.Risk != r.risk {
			t.Errorf("Check(%q) = %v/%v %q, want %v/%v", r.cmd, v.Decision, v.Risk, v.Reasons, r.decision, r.risk)
		}
		if v.Decision != Allow && len(v.Reasons) == 0 {
			t.Errorf("Check(%q) = %v without a reason", r.cmd, v.Decision)
		}
		if v.Decision == Allow && len(v.Reasons) != 0 {
			t.Errorf("Check(%q) allows with reasons %q", r.cmd, v.Reasons)
		}
	}
}

func TestParts(t *testing.T) {
	v := Check("git status && rm -rf build | tee log.txt", tableOptions)
	if len(v.Parts) != 3 {
		t.Fatalf("parts = %+v, want 3", v.Parts)
	}
	want := []struct {
		text, program string
		decision      Decision
	}{
		{"git status", "git", Allow},
		{"rm -rf build", "rm", Prompt},
		{"tee log.txt", "tee", Prompt},
	}
	for i, w := range want {
		p := v.Parts[i]
		if p.Text != w.text || p.Program != w.program || p.Decision != w.decision {
			t.Errorf("part %d = %+v, want %+v", i, p, w)
		}
	}
}

func TestUnwrappedProgram(t *testing.T) {
	v := Check("timeout 5 nice -n 3 env grep foo x.txt", tableOptions)
	if v.Decision != Allow || len(v.Parts) != 1 || v.Parts[0].Program != "grep" {
		t.Fatalf("verdict = %+v, want allow with program grep", v)
	}
}

func TestBlockReasonsComeFirst(t *testing.T) {
	v := Check("FOO=1 rm -rf /", tableOptions)
	if v.Decision != Block || !strings.HasPrefix(v.Reasons[0], "rm -r of /") {
		t.Fatalf("verdict = %+v, want block with the rm reason first", v)
	}
}

func TestNormalisedReadingIsNamed(t *testing.T) {
	v := Check("ｒｍ -ｒｆ /", tableOptions)
	found := false
	for _, r := range v.Reasons {
		found = found || strings.HasPrefix(r, "normalised reading: rm -r of /")
	}
	if !found {
		t.Fatalf("reasons %q do not name the normalised reading", v.Reasons)
	}
}

func TestWorkspaceOptions(t *testing.T) {
	for _, tc := range []struct {
		cmd  string
		opts Options
		want Decision
	}{
		// From a subdirectory, * and . are not the workspace root.
		{"rm -rf *", Options{WorkspaceRoot: "/w", Cwd: "/w/build"}, Prompt},
		{"rm -rf .", Options{WorkspaceRoot: "/w", Cwd: "/w/build"}, Prompt},
		{"rm -rf ..", Options{WorkspaceRoot: "/w", Cwd: "/w/build"}, Block},
		{"rm -rf ../..", Options{WorkspaceRoot: "/w", Cwd: "/w/build"}, Block},
		// Without a known workspace, relative targets cannot be placed.
		{"rm -rf .", Options{}, Prompt},
		{"rm -rf /", Options{}, Block},
		{"cat /etc/hosts", Options{}, Prompt},
		{"cat notes.txt", Options{}, Allow},
		// A custom sensitive-path rule.
		{"cat secret.txt", Options{WorkspaceRoot: "/w", Sensitive: func(p string) bool { return strings.Contains(p, "secret") }}, Prompt},
		// A workspace under a sensitive-looking directory does not flag
		// every file in it.
		{"cat main.go", Options{WorkspaceRoot: "/home/u/.ssh/proj"}, Allow},
	} {
		if v := Check(tc.cmd, tc.opts); v.Decision != tc.want {
			t.Errorf("Check(%q, %+v) = %v %q, want %v", tc.cmd, tc.opts, v.Decision, v.Reasons, tc.want)
		}
	}
}

func TestLongCommandIsNotReviewed(t *testing.T) {
	v := Check("echo "+strings.Repeat("a", MaxCommandBytes), tableOptions)
	if v.Decision != Prompt || v.Risk != High {
		t.Fatalf("verdict = %+v, want prompt/high", v)
	}
}

func TestVerdictJSON(t *testing.T) {
	b, err := json.Marshal(Check("rm -rf /", tableOptions))
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	for _, want := range []string{`"decision":"block"`, `"risk":"high"`, `"reasons":["rm -r of /"`} {
		if !strings.Contains(s, want) {
			t.Errorf("JSON %s lacks %s", s, want)
		}
	}
	b, _ = json.Marshal(Check("ls", tableOptions))
	if !strings.Contains(string(b), `"reasons":[]`) {
		t.Errorf("an allowed verdict's JSON %s should carry an empty reasons list", b)
	}
}
