package mcpserve

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/mark3labs/mcp-go/mcp"
)

// TestElicitationApproves: a client that supports elicitation is asked
// with the approval card; its answer decides, on both protocol versions
// (2025-11-25: elicitation/create; 2026-07-28: a multi round-trip retry).
func TestElicitationApproves(t *testing.T) {
	for _, v := range versions {
		t.Run(v, func(t *testing.T) {
			s := serve(t, serveOpts{})
			cases := []struct {
				decision string
				runs     bool
			}{
				{decisionDeny, false},
				{"something else", false},
				{decisionOnce, true},
			}
			for _, c := range cases {
				ans := &answerer{decision: c.decision}
				cl := connect(t, s, v, ans)
				target := "made_" + strings.ReplaceAll(c.decision, " ", "_")
				res := call(t, cl, "write_file", map[string]any{"path": target, "content": "x\n"})
				if ans.asked.Load() != 1 {
					t.Fatalf("%s: asked %d times", c.decision, ans.asked.Load())
				}
				msg, _ := ans.last.Load().(string)
				if !strings.Contains(msg, "approval needed: write_file") || !strings.Contains(msg, target) {
					t.Fatalf("the elicitation is not the approval card: %q", msg)
				}
				_, err := os.Stat(filepath.Join(s.Workspace, target))
				if ran := err == nil; ran != c.runs || res.IsError == c.runs {
					t.Fatalf("%s: ran %v, result %q", c.decision, ran, text(res))
				}
			}
		})
	}
}

// TestAllowForSessionStaysInItsSession: "allow for the session" covers the
// same call again in that client's session, and never another client's.
func TestAllowForSessionStaysInItsSession(t *testing.T) {
	s := serve(t, serveOpts{})
	first := &answerer{decision: decisionSession}
	a := connect(t, s, mcp.ProtocolVersion20251125, first)
	args := map[string]any{"path": "same.txt", "content": "x\n"}
	for i := 0; i < 2; i++ {
		if res := call(t, a, "write_file", args); res.IsError {
			t.Fatalf("call %d: %s", i, text(res))
		}
	}
	if first.asked.Load() != 1 {
		t.Fatalf("the session allow did not cover the second call: asked %d times", first.asked.Load())
	}
	other := &answerer{decision: decisionDeny}
	b := connect(t, s, mcp.ProtocolVersion20251125, other)
	if res := call(t, b, "write_file", args); !res.IsError || other.asked.Load() != 1 {
		t.Fatalf("another client's session used the allow: asked %d, %q", other.asked.Load(), text(res))
	}
}

// TestStatelessClientsAreNotOfferedTheSession: stateless (2026-07-28) HTTP
// clients share one session, so "allow for the session" is not offered
// them, and such an answer denies; a 2025-11-25 client is offered it.
func TestStatelessClientsAreNotOfferedTheSession(t *testing.T) {
	s := serve(t, serveOpts{})
	for _, v := range versions {
		ans := &answerer{decision: decisionSession}
		c := connect(t, s, v, ans)
		target := "session_" + strings.ReplaceAll(v, "-", "")
		res := call(t, c, "write_file", map[string]any{"path": target, "content": "x\n"})
		choices, _ := ans.choices.Load().([]any)
		offered := slices.Contains(choices, any(decisionSession))
		_, err := os.Stat(filepath.Join(s.Workspace, target))
		stateful := v == mcp.ProtocolVersion20251125
		if offered != stateful || (err == nil) != stateful || res.IsError == stateful {
			t.Fatalf("%s: offered %q, wrote %v, result %q", v, choices, err == nil, text(res))
		}
	}
}

// TestNoElicitationMeansRulesOrDeny: without elicitation the operator's
// --approve rules decide, and anything else is denied with the flag that
// would approve it.
func TestNoElicitationMeansRulesOrDeny(t *testing.T) {
	s := serve(t, serveOpts{})
	c := connect(t, s, mcp.ProtocolVersion20251125, nil)
	res := call(t, c, "write_file", map[string]any{"path": "no.txt", "content": "x\n"})
	if !res.IsError || !strings.Contains(text(res), "--approve allow:write_file") {
		t.Fatalf("%q", text(res))
	}
	s2 := serve(t, serveOpts{rules: []string{"allow:write_file"}})
	c2 := connect(t, s2, mcp.ProtocolVersion20251125, nil)
	if res := call(t, c2, "write_file", map[string]any{"path": "yes.txt", "content": "x\n"}); res.IsError {
		t.Fatalf("the operator's rule did not approve: %q", text(res))
	}
}

// TestClientNeverApprovesWhatTheGuardBlocks: a client that allows
// everything is not even asked about a blocked command.
func TestClientNeverApprovesWhatTheGuardBlocks(t *testing.T) {
	s := serve(t, serveOpts{})
	for _, v := range versions {
		ans := &answerer{decision: decisionOnce}
		c := connect(t, s, v, ans)
		for _, cmd := range []string{"rm -rf /", "rm -rf ~", "mkfs.ext4 /dev/sda", ":(){ :|:& };:"} {
			res := call(t, c, "terminal", map[string]any{"command": cmd})
			if !res.IsError || !strings.Contains(text(res), "blocked") {
				t.Fatalf("%s %q: %q", v, cmd, text(res))
			}
		}
		if n := ans.asked.Load(); n != 0 {
			t.Fatalf("%s: the client was asked %d times about blocked commands", v, n)
		}
	}
}

// TestCoreRuleNeverApprovesOperatorOnly: a core's standing allow rule
// does not approve a command the guard leaves to the operator; over MCP
// without elicitation it is denied, and the operator's own flag does.
func TestCoreRuleNeverApprovesOperatorOnly(t *testing.T) {
	core := "toolsets: [coding]\ncapabilities: [fs.read, fs.write, terminal.exec]\napprovals: [\"allow:terminal\"]\n"
	s := serve(t, serveOpts{core: core})
	c := connect(t, s, mcp.ProtocolVersion20251125, nil)
	res := call(t, c, "terminal", map[string]any{"command": "echo hi > made_by_core_rule"})
	if !res.IsError || !strings.Contains(text(res), "a rule in a core does not count") {
		t.Fatalf("%q", text(res))
	}
	if _, err := os.Stat(filepath.Join(s.Workspace, "made_by_core_rule")); err == nil {
		t.Fatal("the core's rule ran the command")
	}
	s2 := serve(t, serveOpts{core: core, rules: []string{"allow:terminal"}})
	c2 := connect(t, s2, mcp.ProtocolVersion20251125, nil)
	if res := call(t, c2, "terminal", map[string]any{"command": "echo hi > made_by_operator"}); res.IsError {
		t.Fatalf("the operator's rule did not approve: %q", text(res))
	}
}
