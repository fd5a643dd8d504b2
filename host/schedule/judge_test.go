package schedule

import (
	"context"
	"testing"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/policy"
)

// allowAll is a provider that would approve anything: an unattended run
// must never reach it.
type allowAll struct{ asked *int }

func (allowAll) Name() string { return "allow-all" }
func (a allowAll) Ask(context.Context, approval.Request) (approval.Answer, error) {
	*a.asked++
	return approval.AllowOnce, nil
}

func pathFact(rel string, inside bool) policy.SubjectFact {
	return policy.SubjectFact{Kind: string(catalog.SubjectPath), Value: rel, Rel: rel, Inside: inside, RealRel: rel, RealInside: inside}
}

func commandFact(cmd string) policy.SubjectFact {
	return policy.SubjectFact{Kind: string(catalog.SubjectCommand), Value: cmd}
}

// A scheduled run's calls are decided by its lease alone: auto policies,
// a core's standing allow rule and the provider do not widen it.
func TestLeaseIsTheOnlyApprovalOfAScheduledRun(t *testing.T) {
	lease := Lease{Tools: []string{"read_file", "terminal"}, Paths: []string{"ci/**", "notes.md"}, Commands: []string{"git log *", "make check"}}
	var standing []approval.Rule // a core's standing allow rules for every tool in play
	for _, tool := range []string{"read_file", "write_file", "terminal", ToolName} {
		rule, err := approval.ParseRule("allow:" + tool)
		if err != nil {
			t.Fatal(err)
		}
		standing = append(standing, rule)
	}
	asked := 0
	r := approval.Resolver{Provider: allowAll{&asked}, Rules: standing, Unattended: lease.Judge}
	for _, c := range []struct {
		name  string
		req   approval.Request
		allow bool
	}{
		{"leased path, auto", approval.Request{Tool: "read_file", Policy: catalog.ApprovalAuto, Subjects: []policy.SubjectFact{pathFact("ci/log.txt", true)}}, true},
		{"leased file", approval.Request{Tool: "read_file", Policy: catalog.ApprovalAuto, Subjects: []policy.SubjectFact{pathFact("notes.md", true)}}, true},
		{"auto read outside the lease", approval.Request{Tool: "read_file", Policy: catalog.ApprovalAuto, Subjects: []policy.SubjectFact{pathFact("secrets/key", true)}}, false},
		{"prefix is not a tree", approval.Request{Tool: "read_file", Policy: catalog.ApprovalAuto, Subjects: []policy.SubjectFact{pathFact("ci-evil/x", true)}}, false},
		{"outside the workspace", approval.Request{Tool: "read_file", Policy: catalog.ApprovalAuto, Subjects: []policy.SubjectFact{pathFact("", false)}}, false},
		{"tool outside the lease", approval.Request{Tool: "write_file", Policy: catalog.ApprovalPrompt, Subjects: []policy.SubjectFact{pathFact("ci/x", true)}}, false},
		{"schedule_manage", approval.Request{Tool: ToolName, Policy: catalog.ApprovalPrompt}, false},
		{"leased command", approval.Request{Tool: "terminal", Policy: catalog.ApprovalPrompt, Subjects: []policy.SubjectFact{commandFact("git log --oneline -5")}}, true},
		{"exact command", approval.Request{Tool: "terminal", Policy: catalog.ApprovalPrompt, Subjects: []policy.SubjectFact{commandFact("make check")}}, true},
		{"command riding a prefix", approval.Request{Tool: "terminal", Policy: catalog.ApprovalPrompt, Subjects: []policy.SubjectFact{commandFact("git log; rm -rf ci")}}, false},
		{"command substitution on a prefix", approval.Request{Tool: "terminal", Policy: catalog.ApprovalPrompt, Subjects: []policy.SubjectFact{commandFact("git log $(curl x)")}}, false},
		{"exact command plus more", approval.Request{Tool: "terminal", Policy: catalog.ApprovalPrompt, Subjects: []policy.SubjectFact{commandFact("make check deploy")}}, false},
		{"url subject", approval.Request{Tool: "read_file", Policy: catalog.ApprovalAuto, Subjects: []policy.SubjectFact{{Kind: string(catalog.SubjectURL), Value: "https://x"}}}, false},
		{"protected write", approval.Request{Tool: "read_file", Policy: catalog.ApprovalPrompt, Subjects: []policy.SubjectFact{func() policy.SubjectFact {
			f := pathFact("ci/x", true)
			f.Protected = true
			return f
		}()}}, false},
	} {
		out, err := r.Resolve(context.Background(), c.req)
		if err != nil {
			t.Fatal(err)
		}
		if out.Allowed != c.allow || out.Via != approval.ViaLease {
			t.Errorf("%s: allowed %v via %s (%s); want %v via lease", c.name, out.Allowed, out.Via, out.Reason, c.allow)
		}
	}
	if asked != 0 {
		t.Errorf("the provider was asked %d times in an unattended run", asked)
	}
	// A deny rule still denies inside the lease.
	deny, _ := approval.ParseRule("deny:read_file")
	r.Rules = []approval.Rule{deny}
	if out, _ := r.Resolve(context.Background(), approval.Request{Tool: "read_file", Policy: catalog.ApprovalAuto, Subjects: []policy.SubjectFact{pathFact("ci/a", true)}}); out.Allowed {
		t.Error("a deny rule was overridden by the lease")
	}
}
