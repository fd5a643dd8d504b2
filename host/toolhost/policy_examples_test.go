package toolhost

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/host/corerepo"
	"demiurge.dev/host/mcp/mcptest"
)

// policyCore grants reads, writes and commands, and allows writes under
// docs/ by its own rule.
const policyCore = "name: x\ntoolsets: [coding, demiurge_control]\n" +
	"capabilities: [fs.read, fs.write, terminal.exec, tool.call:evolve_core]\n" +
	"approvals: [\"allow:write_file:docs/**\", \"allow:terminal\", \"allow:evolve_core\"]\n"

// The gate checks a core's policy examples against the verdicts its
// policy gives, through the call path: examples that hold let the commit
// through; one that does not stops it, naming the example's file, line
// and field; an example of a tool the catalog lacks is named too.
func TestGateChecksPolicyExamples(t *testing.T) {
	state := t.TempDir()
	r, err := corerepo.OpenOrInit(state)
	if err != nil {
		t.Fatal(err)
	}
	opts := GateOptions{StateDir: state, BuiltinPluginDir: builtinDir}
	gate := func(tree string) error { return Gate(context.Background(), tree, opts) }
	holds := `examples:
  - name: reads run unasked
    tool: read_file
    args: {path: README.md}
    verdict: allow
  - name: the core's rule allows docs
    tool: write_file
    args: {path: docs/a.md, content: x}
    verdict: allow
  - name: other writes are asked
    tool: write_file
    args: {path: src/a.go, content: x}
    verdict: prompt
  - name: a push is asked although the core allows terminal
    tool: terminal
    args: {command: git push origin main}
    verdict: prompt
  - name: a read-only command runs
    tool: terminal
    args: {command: git status}
    verdict: allow
  - name: rm of the root is refused
    tool: terminal
    args: {command: rm -rf /}
    verdict: deny
  - name: history is not granted
    tool: session_search
    args: {query: x}
    verdict: deny
  - name: a core's allow never promotes
    tool: evolve_core
    args: {action: promote, run_id: run_0123456789abcdef}
    verdict: prompt
`
	for name, tc := range map[string]struct{ examples, want string }{
		"all hold": {holds, ""},
		"one fails": {holds + `  - name: wishful
    tool: write_file
    args: {path: src/b.go, content: x}
    verdict: allow
`, `agents/x/policy_examples.yaml:34:5: examples[8]: policy example "wishful" (tool write_file) expects allow, but the core's policy gives prompt`},
		"needs the operator": {`examples:
  - name: the agent approves its own promote
    tool: evolve_core
    args: {action: promote, run_id: run_0123456789abcdef}
    verdict: allow
`, `examples[0]: policy example "the agent approves its own promote" (tool evolve_core) expects allow, but the core's policy gives prompt`},
		"a refusal expected of what runs": {`examples:
  - name: reads are refused
    tool: read_file
    args: {path: README.md}
    verdict: deny
`, `expects deny, but the core's policy gives allow: approval policy is auto`},
		"unknown tool": {`examples:
  - name: no such tool
    tool: read_fiel
    verdict: allow
`, `agents/x/policy_examples.yaml:2:5: examples[0]: policy example "no such tool": unknown tool "read_fiel"`},
		"bad arguments": {`examples:
  - name: no path
    tool: read_file
    args: {paht: a}
    verdict: allow
`, `examples[0]: policy example "no path": read_file:`},
	} {
		t.Run(name, func(t *testing.T) {
			live, _ := r.Live()
			work := checkout(t, r, live)
			dir := filepath.Join(work, "agents/x")
			writeRepoCore(t, dir, policyCore)
			if err := os.WriteFile(filepath.Join(dir, "policy_examples.yaml"), []byte(tc.examples), 0o644); err != nil {
				t.Fatal(err)
			}
			_, _, err := r.Commit(work, "x", gate)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("examples that hold: %v", err)
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("gate: %v\nwant %s", err, tc.want)
			}
			if now, _ := r.Live(); now != live {
				t.Fatal("live moved past a failing example")
			}
		})
	}
}

// The gate connects no MCP server (no one can approve a connect there,
// and the core's own rule for it does not count): an example naming a
// server's tool fails as an unknown tool.
func TestGatePolicyExampleOfAnMCPTool(t *testing.T) {
	bins := mcptest.Servers(t)
	state := t.TempDir()
	r, live := stateRepo(t, state)
	work := checkout(t, r, live)
	dir := filepath.Join(work, "agents/x")
	writeRepoCore(t, dir, "toolsets: [coding]\nslots: {mcp: mcp}\ncapabilities: [fs.read, \"mcp.connect:*\", \"mcp.call:*\"]\napprovals: [\"allow:mcp_connect__docs\"]\n")
	mcptest.Manifest(t, filepath.Join(dir, "mcp"), "docs", "command: "+filepath.Join(bins, "echo")+"\n")
	if err := os.WriteFile(filepath.Join(dir, "policy_examples.yaml"), []byte("examples:\n  - {name: pids run, tool: docs__pids, verdict: allow}\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	opts := GateOptions{StateDir: state, BuiltinPluginDir: builtinDir}
	_, _, err := r.Commit(work, "x", func(tree string) error { return Gate(context.Background(), tree, opts) })
	if err == nil || !strings.Contains(err.Error(), `policy example "pids run": unknown tool "docs__pids"`) {
		t.Fatalf("gate: %v", err)
	}
}
