package importrules

import (
	"bytes"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// rule says which of our packages a package may import directly.
type rule struct {
	from   string   // package path prefix the rule is for
	forbid []string // package path prefixes it must not import
}

// rules are docs/architecture.md's "Import direction", as data.
var rules = []rule{
	{"demiurge.dev/shared", []string{"demiurge.dev/sdk", "demiurge.dev/catalog", "demiurge.dev/host", "demiurge.dev/cmd", "demiurge.dev/plugins"}},
	{"demiurge.dev/sdk", []string{"demiurge.dev/catalog", "demiurge.dev/host", "demiurge.dev/cmd", "demiurge.dev/plugins"}},
	{"demiurge.dev/catalog", []string{"demiurge.dev/shared", "demiurge.dev/sdk", "demiurge.dev/host", "demiurge.dev/cmd", "demiurge.dev/plugins"}},
	{"demiurge.dev/host", []string{"demiurge.dev/sdk", "demiurge.dev/cmd", "demiurge.dev/plugins"}},
	{"demiurge.dev/plugins", []string{"demiurge.dev/host", "demiurge.dev/catalog", "demiurge.dev/cmd"}},
	// Inside host: the callers of dispatch sit above it.
	{"demiurge.dev/host/dispatch", []string{"demiurge.dev/host/turn", "demiurge.dev/host/mcpserve", "demiurge.dev/host/toolhost"}},
	{"demiurge.dev/host/policy", []string{"demiurge.dev/host/dispatch", "demiurge.dev/host/turn", "demiurge.dev/host/mcpserve"}},
	{"demiurge.dev/host/approval", []string{"demiurge.dev/host/dispatch", "demiurge.dev/host/turn", "demiurge.dev/host/mcpserve"}},
	{"demiurge.dev/host/redact", []string{"demiurge.dev/host/dispatch", "demiurge.dev/host/turn", "demiurge.dev/host/mcpserve"}},
	{"demiurge.dev/host/runtime", []string{"demiurge.dev/host/dispatch", "demiurge.dev/host/turn", "demiurge.dev/host/mcpserve", "demiurge.dev/host/policy", "demiurge.dev/host/approval"}},
	// Providers speak a model's wire format and know nothing of the call path.
	{"demiurge.dev/host/providers", []string{"demiurge.dev/host/dispatch", "demiurge.dev/host/policy", "demiurge.dev/host/approval", "demiurge.dev/host/redact", "demiurge.dev/host/runtime", "demiurge.dev/host/toolhost", "demiurge.dev/host/turn"}},
	{"demiurge.dev/host/turn", []string{"demiurge.dev/host/mcpserve"}},
	{"demiurge.dev/host/mcpserve", []string{"demiurge.dev/host/turn"}},
}

type listed struct {
	ImportPath string
	Imports    []string
	Module     *struct{ Path string }
}

// list runs go list over every module of the workspace (test files
// excluded: a test may build a plugin fixture by path).
func list(t *testing.T) []listed {
	t.Helper()
	root, err := filepath.Abs("../../..")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("go", "list", "-json=ImportPath,Imports,Module", "demiurge.dev/...")
	cmd.Dir = root
	var out, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []listed
	dec := json.NewDecoder(&out)
	for dec.More() {
		var p listed
		if err := dec.Decode(&p); err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

func under(path, prefix string) bool {
	return path == prefix || strings.HasPrefix(path, prefix+"/")
}

// violations lists every import of pkgs that a rule forbids.
func violations(pkgs []listed) []string {
	var out []string
	for _, p := range pkgs {
		for _, r := range rules {
			if !under(p.ImportPath, r.from) {
				continue
			}
			for _, imp := range p.Imports {
				for _, f := range r.forbid {
					// A package may import its own subtree (host/dispatch/x).
					if under(imp, f) && !under(imp, r.from) {
						out = append(out, p.ImportPath+" imports "+imp+": "+r.from+" must not import "+f)
					}
				}
			}
		}
	}
	return out
}

func TestImportDirection(t *testing.T) {
	pkgs := list(t)
	if len(pkgs) < 20 {
		t.Fatalf("go list found only %d packages; the workspace is not what this test expects", len(pkgs))
	}
	seen := map[string]bool{}
	for _, p := range pkgs {
		seen[strings.Join(strings.SplitN(p.ImportPath, "/", 3)[:2], "/")] = true
	}
	for _, m := range []string{"demiurge.dev/shared", "demiurge.dev/sdk", "demiurge.dev/catalog", "demiurge.dev/host", "demiurge.dev/cmd", "demiurge.dev/plugins"} {
		if !seen[m] {
			t.Errorf("go list found no package under %s", m)
		}
	}
	for _, v := range violations(pkgs) {
		t.Error(v)
	}
}

// TestRulesCatchAViolation proves the check can fail.
func TestRulesCatchAViolation(t *testing.T) {
	for _, bad := range []listed{
		{ImportPath: "demiurge.dev/host/dispatch", Imports: []string{"demiurge.dev/host/turn"}},
		{ImportPath: "demiurge.dev/plugins/coding", Imports: []string{"demiurge.dev/host/policy"}},
		{ImportPath: "demiurge.dev/host/providers/openai", Imports: []string{"demiurge.dev/host/runtime"}},
		{ImportPath: "demiurge.dev/catalog", Imports: []string{"demiurge.dev/shared/toolsetv1"}},
		// Wire types have no exception: the front end's events live in
		// shared (shared/turnevent), which may import nothing of host.
		{ImportPath: "demiurge.dev/host/approval", Imports: []string{"demiurge.dev/host/turn/turnevent"}},
		{ImportPath: "demiurge.dev/shared/turnevent", Imports: []string{"demiurge.dev/host/turn"}},
	} {
		if len(violations([]listed{bad})) == 0 {
			t.Errorf("%s importing %s is not reported", bad.ImportPath, bad.Imports[0])
		}
	}
}
