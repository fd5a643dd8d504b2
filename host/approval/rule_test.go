package approval

import (
	"strings"
	"testing"

	"demiurge.dev/host/policy"
)

func TestParseRule(t *testing.T) {
	for _, tc := range []struct {
		in      string
		want    string // canonical form; empty when an error is expected
		wantErr string
	}{
		{"allow:write_file", "allow:write_file", ""},
		{"deny:read_file", "deny:read_file", ""},
		{"  allow:patch:src/**  ", "allow:patch:src/**", ""},
		{"allow:write_file:notes/*.txt", "allow:write_file:notes/*.txt", ""},
		{"deny:write_file:**/.env*", "deny:write_file:**/.env*", ""},
		{"prompt:read_file", "prompt:read_file", ""},
		{"prompt:read_file:**/*.pem", "prompt:read_file:**/*.pem", ""},
		{"allow:mcp_github-search_v2", "allow:mcp_github-search_v2", ""},
		{"allow:mcp.github", "", "tool name"},
		{"allow:x:a:b", "allow:x:a:b", ""}, // the glob is everything after the tool
		{"", "", "empty"},
		{"allow", "", "has no tool"},
		{"grant:x", "", `action "grant" is unknown`},
		{"Allow:x", "", "unknown"},
		{"allow:", "", "tool name is empty"},
		{"allow:*", "", "no wildcards"},
		{"allow:read file", "", "must start with a letter"},
		{"allow:x:", "", "glob after the tool is empty"},
		{"allow:x:/etc/*", "", "absolute"},
		{"allow:x:../*", "", `".." segment`},
		{"allow:x:./a", "", `"." segment`},
		{"allow:x:a//b", "", "empty segment"},
		{"allow:x:a/", "", "empty segment"},
		{"allow:x:a**", "", "whole segment"},
		{"allow:x:[a", "", "syntax error"},
		{"allow:x:a\\", "", "syntax error"},
	} {
		r, err := ParseRule(tc.in)
		if tc.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantErr) {
				t.Errorf("ParseRule(%q) = %v, %v; want error containing %q", tc.in, r, err, tc.wantErr)
			}
			continue
		}
		if err != nil || r.String() != tc.want {
			t.Errorf("ParseRule(%q) = %q, %v; want %q", tc.in, r.String(), err, tc.want)
		}
	}
}

func pathFact(rel string, inside bool) policy.SubjectFact {
	f := policy.SubjectFact{Kind: "path", Arg: "path", Resolved: "/ws/" + rel, Rel: rel, Inside: inside, Access: "write"}
	if !inside {
		f.Resolved, f.Rel = "/elsewhere/"+rel, ""
	}
	return f
}

func TestRuleMatches(t *testing.T) {
	cmd := policy.SubjectFact{Kind: "command", Arg: "command", Value: "ls"}
	for _, tc := range []struct {
		rule     string
		tool     string
		subjects []policy.SubjectFact
		want     bool
	}{
		{"allow:write_file", "write_file", nil, true},
		{"allow:write_file", "patch", nil, false},
		{"allow:write_file", "write_file", []policy.SubjectFact{pathFact("x", false)}, true},
		{"allow:write_file:*.txt", "write_file", []policy.SubjectFact{pathFact("a.txt", true)}, true},
		{"allow:write_file:*.txt", "write_file", []policy.SubjectFact{pathFact("d/a.txt", true)}, false},
		{"allow:write_file:**/*.txt", "write_file", []policy.SubjectFact{pathFact("d/e/a.txt", true)}, true},
		{"allow:write_file:**/*.txt", "write_file", []policy.SubjectFact{pathFact("a.txt", true)}, true},
		{"allow:write_file:src/**", "write_file", []policy.SubjectFact{pathFact("src", true)}, true},
		{"allow:write_file:src/**", "write_file", []policy.SubjectFact{pathFact("src/a/b.go", true)}, true},
		{"allow:write_file:src/**", "write_file", []policy.SubjectFact{pathFact("srcx/a.go", true)}, false},
		{"allow:write_file:src/**/test/*.go", "write_file", []policy.SubjectFact{pathFact("src/test/a.go", true)}, true},
		{"allow:write_file:src/**/test/*.go", "write_file", []policy.SubjectFact{pathFact("src/x/y/test/a.go", true)}, true},
		{"allow:write_file:src/**/test/*.go", "write_file", []policy.SubjectFact{pathFact("src/x/test/sub/a.go", true)}, false},
		{"allow:write_file:*", "write_file", []policy.SubjectFact{pathFact(".env", true)}, true},
		{"allow:search_files:**", "search_files", []policy.SubjectFact{pathFact(".", true)}, true},
		{"allow:search_files:*", "search_files", []policy.SubjectFact{pathFact(".", true)}, false},
		// A glob never reaches outside the workspace, even when the
		// outside path's tail would match.
		{"allow:write_file:**", "write_file", []policy.SubjectFact{pathFact("a.txt", false)}, false},
		// Every path subject must match an allow glob.
		{"allow:copy:src/**", "copy", []policy.SubjectFact{pathFact("src/a", true), pathFact("etc/b", true)}, false},
		{"allow:copy:src/**", "copy", []policy.SubjectFact{pathFact("src/a", true), pathFact("src/b", true)}, true},
		// An allow glob needs a path, and refuses to speak for a command.
		{"allow:terminal:**", "terminal", nil, false},
		{"allow:terminal:**", "terminal", []policy.SubjectFact{pathFact("a", true), cmd}, false},
		// A deny glob matches when any path subject matches.
		{"deny:copy:**/.env*", "copy", []policy.SubjectFact{pathFact("a", true), pathFact("app/.env.local", true)}, true},
		{"deny:copy:**/.env*", "copy", []policy.SubjectFact{cmd, pathFact("a", true)}, false},
		{"deny:copy:**/.env*", "copy", nil, false},
		{"deny:copy", "copy", nil, true},
		{"prompt:copy:**/.env*", "copy", []policy.SubjectFact{pathFact("a", true), pathFact(".env", true)}, true},
		{"prompt:copy:**/.env*", "copy", []policy.SubjectFact{pathFact("a", true)}, false},
		{"prompt:copy", "copy", nil, true},
	} {
		r, err := ParseRule(tc.rule)
		if err != nil {
			t.Fatal(err)
		}
		if got := r.Matches(Request{Tool: tc.tool, Subjects: tc.subjects}); got != tc.want {
			t.Errorf("%s on %s %+v: Matches = %v, want %v", tc.rule, tc.tool, tc.subjects, got, tc.want)
		}
	}
}

func TestHandBuiltRuleWithBadGlobMatchesNothing(t *testing.T) {
	r := Rule{Action: RuleAllow, Tool: "write_file", Glob: "[a"}
	if r.Matches(Request{Tool: "write_file", Subjects: []policy.SubjectFact{pathFact("[a", true)}}) {
		t.Error("a malformed hand-built glob matched")
	}
	r = Rule{Action: RuleAllow, Tool: "write_file", Glob: "src/*"}
	if !r.Matches(Request{Tool: "write_file", Subjects: []policy.SubjectFact{pathFact("src/a", true)}}) {
		t.Error("a valid hand-built glob did not match")
	}
	if (Rule{Action: "maybe", Tool: "write_file"}).Matches(Request{Tool: "write_file"}) {
		t.Error("a rule with an unknown action matched")
	}
}

func FuzzParseRule(f *testing.F) {
	for _, s := range []string{
		"allow:write_file", "deny:x", "allow:x:src/**", "allow:x:**/*.go", "allow:x:[a", "allow::",
		"deny:x:**/**/**/a", "prompt:x:*.pem", "allow:x:a\\*b", "allow:x:/abs", "allow:x:../up", ":", "allow:x:[^a]/*",
	} {
		f.Add(s, "src/a/b.go")
	}
	f.Fuzz(func(t *testing.T, s, rel string) {
		r, err := ParseRule(s)
		if err != nil {
			return
		}
		back, err := ParseRule(r.String())
		if err != nil || back.String() != r.String() {
			t.Fatalf("%q: canonical form %q does not parse back: %v", s, r.String(), err)
		}
		// Matching never panics, and an allow glob never covers a path
		// outside the workspace.
		r.Matches(Request{Tool: r.Tool, Subjects: []policy.SubjectFact{pathFact(rel, true)}})
		if r.Action == RuleAllow && r.Glob != "" && r.Matches(Request{Tool: r.Tool, Subjects: []policy.SubjectFact{pathFact(rel, false)}}) {
			t.Fatalf("%q covers an outside path", s)
		}
	})
}

// A path through a symlink is matched where it lands: an allow glob only
// on the real path (and never for a path led out of the workspace), a
// deny or prompt glob on either spelling.
func TestRuleGlobsMatchTheRealPath(t *testing.T) {
	linked := func(rel, realRel string, realInside bool) policy.SubjectFact {
		f := pathFact(rel, true)
		f.Real, f.RealRel, f.RealInside = "/ws/"+realRel, realRel, realInside
		if !realInside {
			f.Real, f.RealRel = "/elsewhere/x", ""
		}
		return f
	}
	for _, tc := range []struct {
		rule string
		fact policy.SubjectFact
		want bool
	}{
		{"deny:write_file:secret/**", linked("alias/x.txt", "secret/x.txt", true), true},
		{"prompt:write_file:secret/**", linked("alias/x.txt", "secret/x.txt", true), true},
		{"deny:write_file:alias/**", linked("alias/x.txt", "secret/x.txt", true), true},
		{"allow:write_file:docs/**", linked("docs/link/a.go", "src/a.go", true), false},
		{"allow:write_file:src/**", linked("docs/link/a.go", "src/a.go", true), true},
		{"allow:write_file:docs/**", linked("docs/out/a", "", false), false},
		{"allow:write_file:**", linked("docs/out/a", "", false), false},
		{"deny:write_file:docs/**", linked("docs/out/a", "", false), true},
		{"allow:write_file:docs/**", linked("docs/a.md", "docs/a.md", true), true},
	} {
		r, err := ParseRule(tc.rule)
		if err != nil {
			t.Fatal(err)
		}
		req := Request{Tool: "write_file", Subjects: []policy.SubjectFact{tc.fact}}
		if got := r.Matches(req); got != tc.want {
			t.Errorf("%s on %s (real %q): %v, want %v", tc.rule, tc.fact.Rel, tc.fact.RealRel, got, tc.want)
		}
	}
}

// TestAllowGlobNeedsThePathWrittenInside: an allow glob holds only for a
// path written inside the workspace that also lands there; a path written
// outside (/tmp/link.txt) that a symlink leads to an allowed file inside
// is asked about, not allowed.
func TestAllowGlobNeedsThePathWrittenInside(t *testing.T) {
	r, err := ParseRule("allow:write_file:*.txt")
	if err != nil {
		t.Fatal(err)
	}
	outsideToInside := policy.SubjectFact{Kind: "path", Arg: "path", Access: "write", Value: "/tmp/link.txt",
		Resolved: "/tmp/link.txt", Inside: false, Real: "/ws/a.txt", RealRel: "a.txt", RealInside: true}
	if r.Matches(Request{Tool: "write_file", Subjects: []policy.SubjectFact{outsideToInside}}) {
		t.Error("an allow glob matched a path written outside the workspace that leads inside")
	}
	insideToInside := policy.SubjectFact{Kind: "path", Arg: "path", Access: "write", Value: "b.txt",
		Resolved: "/ws/b.txt", Rel: "b.txt", Inside: true, Real: "/ws/a.txt", RealRel: "a.txt", RealInside: true}
	if !r.Matches(Request{Tool: "write_file", Subjects: []policy.SubjectFact{insideToInside}}) {
		t.Error("an allow glob did not match a link inside the workspace to an allowed file inside it")
	}
}

// TestActionRuleBuiltByHand: a Rule made as a literal (not parsed) still
// matches actions by its glob.
func TestActionRuleBuiltByHand(t *testing.T) {
	r := Rule{Action: RuleDeny, Glob: "promote/*"}
	if !r.matchesAction("promote/run_1") || r.matchesAction("discard/run_1") {
		t.Error("a hand-made deny:promote/* does not match by its glob")
	}
}
