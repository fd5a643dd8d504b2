package core

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"demiurge.dev/catalog"
)

func ptr[T any](v T) *T { return &v }

// goodDir returns the resolved absolute path of testdata/good/name.
func goodDir(t *testing.T, name string) string {
	t.Helper()
	d, err := filepath.Abs(filepath.Join("testdata", "good", name))
	if err != nil {
		t.Fatal(err)
	}
	d, err = filepath.EvalSymlinks(d)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func revision(t *testing.T, file string) string {
	t.Helper()
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}

func TestLoadGood(t *testing.T) {
	full := goodDir(t, "full")
	tests := []struct {
		dir  string
		want func(dir string) *Core
	}{
		{"minimal", func(dir string) *Core {
			return &Core{Toolsets: []string{"coding"}, Metadata: map[string]catalog.Override{}}
		}},
		{"full", func(dir string) *Core {
			return &Core{
				Name:      "my-agent",
				Toolsets:  []string{"coding", "demiurge_control"},
				ToolsRoot: filepath.Join(dir, "agent", "tools"),
				MCPRoot:   filepath.Join(dir, "agent", "mcp"),
				Metadata: map[string]catalog.Override{
					"web_extract":  {ApprovalPolicy: ptr(catalog.ApprovalDeny), Origin: "agent.yaml:12"},
					"project_note": {Risk: ptr(catalog.RiskLow), Enabled: ptr(false), Origin: "agent.yaml:14"},
					"write_file": {
						Risk: ptr(catalog.RiskHigh), Capability: ptr("fs.write"),
						ModelOutputPolicy: ptr("content"), DisplayPolicy: ptr("full"),
						Origin: "agent.yaml:17",
					},
				},
				Capabilities: []string{"fs.read", "fs.write", "secret.bind:GITHUB_TOKEN", "mcp.connect:docs"},
				Approvals:    []string{"allow:read_file", "deny:write_file", "allow:write_file:docs/**"},
				Workspace:    filepath.Join(dir, "work"),
			}
		}},
		{"grants_only", func(dir string) *Core {
			return &Core{
				Metadata:     map[string]catalog.Override{},
				Capabilities: []string{"fs.read"},
				Approvals:    []string{"prompt:read_file:secrets/**"},
			}
		}},
		{"workspace_elsewhere", func(dir string) *Core {
			return &Core{Toolsets: []string{}, Metadata: map[string]catalog.Override{}, Workspace: filepath.Join(full, "work")}
		}},
	}
	for _, tc := range tests {
		t.Run(tc.dir, func(t *testing.T) {
			dir := goodDir(t, tc.dir)
			got, err := Load(filepath.Join("testdata", "good", tc.dir))
			if err != nil {
				t.Fatalf("Load: %v", err)
			}
			want := tc.want(dir)
			want.Dir = dir
			want.File = filepath.Join(dir, FileName)
			want.Revision = revision(t, want.File)
			want.Pipelines = DefaultPipelines() // no pipelines.yaml: the host's own slots
			// Where each grant is written is checked by
			// TestCapabilityPositions; here only that there is one per grant.
			if len(got.CapabilityAt) != len(got.Capabilities) {
				t.Errorf("Load(%s): %d capability positions for %d grants", tc.dir, len(got.CapabilityAt), len(got.Capabilities))
			}
			got.CapabilityAt = nil
			if !reflect.DeepEqual(got, want) {
				t.Errorf("Load(%s)\n got %+v\nwant %+v", tc.dir, got, want)
			}
		})
	}
}

func TestDefault(t *testing.T) {
	c := Default()
	if c.File != EmbeddedFile || c.Dir != "" || c.Workspace != "" || c.ToolsRoot != "" || c.MCPRoot != "" {
		t.Errorf("Default() has paths: %+v", c)
	}
	if !reflect.DeepEqual(c.Toolsets, []string{"coding", "demiurge_control"}) {
		t.Errorf("Default().Toolsets = %v, want [coding demiurge_control]", c.Toolsets)
	}
	if want := []string{"fs.read", "fs.write", "terminal.exec", "network.fetch", "session.read", "tool.call:delegate_task", "tool.call:rollback_core", "tool.call:evolve_core"}; !reflect.DeepEqual(c.Capabilities, want) {
		t.Errorf("Default().Capabilities = %v, want %v", c.Capabilities, want)
	}
	sum := sha256.Sum256(defaultYAML)
	if c.Revision != hex.EncodeToString(sum[:]) {
		t.Errorf("Default().Revision = %q, not the sha256 of the embedded file", c.Revision)
	}
	// Each call is a copy: a caller's change does not leak into the next.
	c.Toolsets[0] = "changed"
	c.Capabilities = append(c.Capabilities, "schedule.manage")
	c.Metadata["x"] = catalog.Override{}
	d := Default()
	if d.Toolsets[0] != "coding" || len(d.Capabilities) != 8 || len(d.Metadata) != 0 {
		t.Errorf("Default() shares state between calls: %+v", d)
	}
}

func TestCloneIsDeep(t *testing.T) {
	c := &Core{Toolsets: []string{"coding"}, Metadata: map[string]catalog.Override{
		"write_file": {Risk: ptr(catalog.RiskHigh), Enabled: ptr(true)},
	}}
	n := c.clone()
	*n.Metadata["write_file"].Risk = catalog.RiskLow
	*n.Metadata["write_file"].Enabled = false
	if *c.Metadata["write_file"].Risk != catalog.RiskHigh || !*c.Metadata["write_file"].Enabled {
		t.Error("clone shares override pointers with the original")
	}
}

func TestKnownToolsets(t *testing.T) {
	got := KnownToolsets()
	if !reflect.DeepEqual(got, []string{"coding", "demiurge_control", "schedule"}) {
		t.Errorf("KnownToolsets() = %v", got)
	}
	got[0] = "changed"
	if KnownToolsets()[0] != "coding" {
		t.Error("KnownToolsets() returns shared state")
	}
}

// TestCapabilityPositions: each grant's line and column, so the host's
// check of a grant names where it is written.
func TestCapabilityPositions(t *testing.T) {
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte("toolsets: [coding]\ncapabilities:\n  - fs.read\n  - fs.raed\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	c, err := Load(dir)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(c.CapabilityAt, [][2]int{{3, 5}, {4, 5}}) {
		t.Fatalf("CapabilityAt = %v", c.CapabilityAt)
	}
	msg := c.CapabilityError(1, errors.New("unknown capability")).Error()
	if want := FileName + ":4:5: capabilities[1]: unknown capability"; !strings.HasSuffix(msg, want) {
		t.Errorf("error %q does not end with %q", msg, want)
	}
}
