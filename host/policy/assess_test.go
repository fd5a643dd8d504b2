package policy

import (
	"slices"
	"strings"
	"testing"

	"demiurge.dev/catalog"
)

func readSpec() catalog.ToolSpec {
	return catalog.ToolSpec{
		Name:     "read_file",
		Effect:   catalog.EffectRead,
		Metadata: catalog.Metadata{Risk: catalog.RiskLow, Capability: "fs.read", ApprovalPolicy: catalog.ApprovalAuto},
		Subjects: []catalog.Subject{{Kind: catalog.SubjectPath, Arg: "path", Access: catalog.AccessRead}},
	}
}

func writeSpec() catalog.ToolSpec {
	return catalog.ToolSpec{
		Name:     "write_file",
		Effect:   catalog.EffectWrite,
		Metadata: catalog.Metadata{Risk: catalog.RiskMedium, Capability: "fs.write", ApprovalPolicy: catalog.ApprovalPrompt},
		Subjects: []catalog.Subject{{Kind: catalog.SubjectPath, Arg: "path", Access: catalog.AccessWrite}},
	}
}

// copySpec reads one path and writes another, to check several subjects.
func copySpec() catalog.ToolSpec {
	return catalog.ToolSpec{
		Name:     "copy_file",
		Effect:   catalog.EffectWrite,
		Metadata: catalog.Metadata{Risk: catalog.RiskLow, ApprovalPolicy: catalog.ApprovalAuto},
		Subjects: []catalog.Subject{
			{Kind: catalog.SubjectPath, Arg: "from", Access: catalog.AccessRead},
			{Kind: catalog.SubjectPath, Arg: "to", Access: catalog.AccessWrite},
		},
	}
}

var ws = Workspace{Root: "/home/u/proj"}

func TestAssessPaths(t *testing.T) {
	for _, tc := range []struct {
		name      string
		spec      catalog.ToolSpec
		meta      *catalog.Metadata // nil: the spec's own
		args      map[string]any
		risk      catalog.Risk
		approval  catalog.ApprovalPolicy
		reasons   []string // each a substring of some reason
		inside    bool
		sensitive bool
		keys      []string
		grants    []PathGrant
		readOnly  bool
	}{
		{
			name: "read inside", spec: readSpec(), args: map[string]any{"path": "src/main.go"},
			risk: catalog.RiskLow, approval: catalog.ApprovalAuto, inside: true,
			keys: []string{"fs:/home/u/proj/src/main.go"}, readOnly: true,
		},
		{
			name: "read inside by absolute path", spec: readSpec(), args: map[string]any{"path": "/home/u/proj/README.md"},
			risk: catalog.RiskLow, approval: catalog.ApprovalAuto, inside: true,
			keys: []string{"fs:/home/u/proj/README.md"}, readOnly: true,
		},
		{
			name: "read outside", spec: readSpec(), args: map[string]any{"path": "../other/x.txt"},
			risk: catalog.RiskMedium, approval: catalog.ApprovalPrompt, reasons: []string{"outside the workspace"},
			keys:   []string{"fs:/home/u/other/x.txt"},
			grants: []PathGrant{{Path: "/home/u/other/x.txt", Access: catalog.AccessRead}}, readOnly: true,
		},
		{
			name: "read sibling with a shared prefix", spec: readSpec(), args: map[string]any{"path": "/home/u/proj-other/x"},
			risk: catalog.RiskMedium, approval: catalog.ApprovalPrompt, reasons: []string{"outside the workspace"},
			keys:   []string{"fs:/home/u/proj-other/x"},
			grants: []PathGrant{{Path: "/home/u/proj-other/x", Access: catalog.AccessRead}}, readOnly: true,
		},
		{
			name: "read sensitive inside", spec: readSpec(), args: map[string]any{"path": ".env.local"},
			risk: catalog.RiskHigh, approval: catalog.ApprovalPrompt, reasons: []string{"credential-like"},
			inside: true, sensitive: true, keys: []string{"fs:/home/u/proj/.env.local"}, readOnly: true,
		},
		{
			name: "read sensitive outside", spec: readSpec(), args: map[string]any{"path": "/home/u/.ssh/id_ed25519"},
			risk: catalog.RiskHigh, approval: catalog.ApprovalPrompt, reasons: []string{"outside the workspace", "credential-like"},
			sensitive: true, keys: []string{"fs:/home/u/.ssh/id_ed25519"},
			grants: []PathGrant{{Path: "/home/u/.ssh/id_ed25519", Access: catalog.AccessRead}}, readOnly: true,
		},
		{
			name: "metadata only raises", spec: readSpec(),
			meta: &catalog.Metadata{Risk: catalog.RiskHigh, ApprovalPolicy: catalog.ApprovalDeny},
			args: map[string]any{"path": "../x"}, risk: catalog.RiskHigh, approval: catalog.ApprovalDeny,
			keys: []string{"fs:/home/u/x"}, grants: []PathGrant{{Path: "/home/u/x", Access: catalog.AccessRead}}, readOnly: true,
		},
		{
			name: "out-of-lattice metadata is strictest", spec: readSpec(),
			meta: &catalog.Metadata{Risk: catalog.Risk(-1), ApprovalPolicy: catalog.ApprovalPolicy(9)},
			args: map[string]any{"path": "a"}, risk: catalog.RiskHigh, approval: catalog.ApprovalDeny,
			inside: true, keys: []string{"fs:/home/u/proj/a"}, readOnly: true,
		},
		{
			name: "write inside", spec: writeSpec(), args: map[string]any{"path": "notes.txt"},
			risk: catalog.RiskMedium, approval: catalog.ApprovalPrompt, reasons: []string{"writes notes.txt"},
			inside: true, keys: []string{"fs:/home/u/proj/notes.txt"},
		},
		{
			name: "a write declared auto still prompts", spec: writeSpec(),
			meta: &catalog.Metadata{Risk: catalog.RiskLow, ApprovalPolicy: catalog.ApprovalAuto},
			args: map[string]any{"path": "notes.txt"}, risk: catalog.RiskMedium, approval: catalog.ApprovalPrompt,
			inside: true, keys: []string{"fs:/home/u/proj/notes.txt"},
		},
		{
			name: "write outside", spec: writeSpec(), args: map[string]any{"path": "../../../etc/cron.d/x"},
			risk: catalog.RiskHigh, approval: catalog.ApprovalDeny, reasons: []string{"writes outside the workspace are refused"},
			keys: []string{"fs:/etc/cron.d/x"},
		},
		{
			name: "write sensitive", spec: writeSpec(), args: map[string]any{"path": "deploy/.aws/credentials"},
			risk: catalog.RiskHigh, approval: catalog.ApprovalPrompt, reasons: []string{"credential-like"},
			inside: true, sensitive: true, keys: []string{"fs:/home/u/proj/deploy/.aws/credentials"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			meta := tc.spec.Metadata
			if tc.meta != nil {
				meta = *tc.meta
			}
			got, err := Assess(tc.spec, meta, tc.args, ws)
			if err != nil {
				t.Fatal(err)
			}
			if got.Risk != tc.risk || got.Approval != tc.approval {
				t.Errorf("risk/approval = %v/%v, want %v/%v", got.Risk, got.Approval, tc.risk, tc.approval)
			}
			for _, want := range tc.reasons {
				if !slices.ContainsFunc(got.Reasons, func(r string) bool { return strings.Contains(r, want) }) {
					t.Errorf("reasons %q lack %q", got.Reasons, want)
				}
			}
			if len(tc.reasons) == 0 && tc.approval == catalog.ApprovalAuto && len(got.Reasons) != 0 {
				t.Errorf("unexpected reasons %q", got.Reasons)
			}
			f := got.Subjects[0]
			if f.Inside != tc.inside || f.Sensitive != tc.sensitive {
				t.Errorf("inside/sensitive = %v/%v, want %v/%v", f.Inside, f.Sensitive, tc.inside, tc.sensitive)
			}
			if !slices.Equal(got.ResourceKeys, tc.keys) || !slices.Equal(got.Grants, tc.grants) || got.ReadOnly != tc.readOnly {
				t.Errorf("keys %v grants %v readOnly %v; want %v %v %v", got.ResourceKeys, got.Grants, got.ReadOnly, tc.keys, tc.grants, tc.readOnly)
			}
			if got.Block {
				t.Error("a path assessment blocked")
			}
		})
	}
}

func TestAssessSensitivityIsRelativeToTheRoot(t *testing.T) {
	// A workspace that lives under a credential-looking directory does not
	// make every file in it sensitive.
	w := Workspace{Root: "/home/u/.config/gh/proj"}
	got, err := Assess(readSpec(), readSpec().Metadata, map[string]any{"path": "main.go"}, w)
	if err != nil {
		t.Fatal(err)
	}
	if got.Subjects[0].Sensitive || got.Approval != catalog.ApprovalAuto {
		t.Errorf("main.go under the root was called sensitive: %+v", got)
	}
}

func TestAssessSeveralSubjects(t *testing.T) {
	got, err := Assess(copySpec(), copySpec().Metadata, map[string]any{"from": "/etc/hosts", "to": "hosts.copy"}, ws)
	if err != nil {
		t.Fatal(err)
	}
	if got.Approval != catalog.ApprovalPrompt || got.Risk != catalog.RiskMedium || got.ReadOnly {
		t.Errorf("got %v/%v readOnly=%v", got.Risk, got.Approval, got.ReadOnly)
	}
	if want := []string{"fs:/etc/hosts", "fs:/home/u/proj/hosts.copy"}; !slices.Equal(got.ResourceKeys, want) {
		t.Errorf("keys = %v, want %v", got.ResourceKeys, want)
	}
	if len(got.Subjects) != 2 || got.Subjects[1].Access != catalog.AccessWrite || got.Subjects[1].Rel != "hosts.copy" {
		t.Errorf("subjects = %+v", got.Subjects)
	}
}

func TestAssessFailsClosed(t *testing.T) {
	unknownKind := readSpec()
	unknownKind.Subjects[0].Kind = "socket"
	noAccess := readSpec()
	noAccess.Subjects[0].Access = ""
	for _, tc := range []struct {
		name string
		spec catalog.ToolSpec
		args map[string]any
		ws   Workspace
		want string
	}{
		{"missing argument", readSpec(), map[string]any{}, ws, `"path" is missing`},
		{"non-string argument", readSpec(), map[string]any{"path": 3.0}, ws, "must be a string"},
		{"nil argument", readSpec(), map[string]any{"path": nil}, ws, "must be a string"},
		{"empty path", readSpec(), map[string]any{"path": ""}, ws, "empty"},
		{"NUL byte", readSpec(), map[string]any{"path": "a\x00/etc/passwd"}, ws, "NUL"},
		{"unknown subject kind", unknownKind, map[string]any{"path": "a"}, ws, "unknown kind"},
		{"path subject without access", noAccess, map[string]any{"path": "a"}, ws, "access"},
		{"relative workspace", readSpec(), map[string]any{"path": "a"}, Workspace{Root: "proj"}, "not absolute"},
		{"unclean workspace", readSpec(), map[string]any{"path": "a"}, Workspace{Root: "/a/../b"}, "not clean"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Assess(tc.spec, tc.spec.Metadata, tc.args, tc.ws)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestAssessFingerprint(t *testing.T) {
	fp := func(spec catalog.ToolSpec, args map[string]any) string {
		t.Helper()
		a, err := Assess(spec, spec.Metadata, args, ws)
		if err != nil {
			t.Fatal(err)
		}
		return a.Fingerprint
	}
	base := fp(writeSpec(), map[string]any{"path": "notes.txt", "content": "a"})
	if got := fp(writeSpec(), map[string]any{"path": "./x/../notes.txt", "content": "b"}); got != base {
		t.Error("the same resolved path (other spelling, other content) changed the fingerprint")
	}
	if fp(writeSpec(), map[string]any{"path": "other.txt"}) == base {
		t.Error("another path shares the fingerprint")
	}
	renamed := writeSpec()
	renamed.Name = "patch"
	if fp(renamed, map[string]any{"path": "notes.txt"}) == base {
		t.Error("another tool shares the fingerprint")
	}
	otherRoot, err := Assess(writeSpec(), writeSpec().Metadata, map[string]any{"path": "notes.txt"}, Workspace{Root: "/elsewhere"})
	if err != nil || otherRoot.Fingerprint == base {
		t.Error("the same relative path in another workspace shares the fingerprint")
	}
}
