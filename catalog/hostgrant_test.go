package catalog

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestHostGrantsMakeOneToolCallable: a path grant of a tool's singular
// capability makes that tool callable and no other with the same
// capability; the grant shows in tools show (text and JSON) with its file
// and line; the original catalog is unchanged.
func TestHostGrantsMakeOneToolCallable(t *testing.T) {
	deploy, prod := authoredSpec("deploy"), authoredSpec("deploy_prod")
	deploy.Metadata.Capability, prod.Metadata.Capability = "tool.call:deploy", "tool.call:deploy"
	full := mustResolve(t, []Source{{Kind: SourceAuthored, Name: "agent/tools", Tools: []ToolSpec{deploy, prod}, Binding: &binding{"authored"}}}, nil)
	grant := HostGrant{Capability: "tool.call:deploy", Pattern: "agent/tools/deploy/**", File: "/cfg/grants.yaml", Line: 3}
	granted := full.WithHostGrants(func(e *Entry) []HostGrant {
		if e.Name() == "deploy" {
			return []HostGrant{grant}
		}
		return nil
	})
	c := granted.Callable(Grants(nil))
	if got := names(c); len(got) != 1 || got[0] != "deploy" {
		t.Fatalf("callable %v, want [deploy]", got)
	}
	if u := c.Unavailable(); len(u) != 1 || u[0].Tool != "deploy_prod" {
		t.Errorf("unavailable %v", u)
	}
	e, _ := c.Lookup("deploy")
	if !e.HostGranted("tool.call:deploy") || e.HostGranted("tool.call:other") || e.HostGranted("") {
		t.Error("HostGranted")
	}
	if !strings.Contains(e.Detail(), "  host grants:         tool.call:deploy (/cfg/grants.yaml:3, path agent/tools/deploy/**)") {
		t.Errorf("detail:\n%s", e.Detail())
	}
	b, _ := json.Marshal(e.Summary())
	if !strings.Contains(string(b), `"host_grants":[{"capability":"tool.call:deploy","pattern":"agent/tools/deploy/**","file":"/cfg/grants.yaml","line":3}]`) {
		t.Errorf("summary: %s", b)
	}
	if orig, _ := full.Lookup("deploy"); orig.HostGrants != nil {
		t.Error("WithHostGrants changed the original entry")
	}
	if got := names(full.Callable(Grants(nil))); len(got) != 0 {
		t.Errorf("without grants: %v", got)
	}
	if b, _ := json.Marshal(full.Entries()[1].Summary()); strings.Contains(string(b), "host_grants") || strings.Contains(full.Entries()[1].Detail(), "host grants") {
		t.Error("an entry without grants shows host grants")
	}
}
