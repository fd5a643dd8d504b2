package sdk

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/hashicorp/go-hclog"
)

func validSpec() Spec {
	return Spec{Name: "read_file", Description: "Read a file.", Schema: json.RawMessage(`{"type":"object"}`), Effect: EffectRead}
}

func TestSpecValidate(t *testing.T) {
	tests := []struct {
		name    string
		change  func(*Spec)
		wantErr string // "" when the spec is valid
	}{
		{"valid", func(*Spec) {}, ""},
		{"hyphen and digits", func(s *Spec) { s.Name = "web-fetch2" }, ""},
		{"leading underscore", func(s *Spec) { s.Name = "_internal" }, ""},
		{"64 characters", func(s *Spec) { s.Name = strings.Repeat("a", 64) }, ""},
		{"65 characters", func(s *Spec) { s.Name = strings.Repeat("a", 65) }, "must match"},
		{"leading digit", func(s *Spec) { s.Name = "2fa" }, "must match"},
		{"leading hyphen", func(s *Spec) { s.Name = "-x" }, "must match"},
		{"space", func(s *Spec) { s.Name = "read file" }, "must match"},
		{"dot", func(s *Spec) { s.Name = "fs.read" }, "must match"},
		{"empty name", func(s *Spec) { s.Name = "" }, "must match"},
		{"non-ASCII", func(s *Spec) { s.Name = "lire_fichié" }, "must match"},
		{"empty description", func(s *Spec) { s.Description = "" }, "description is empty"},
		{"no schema", func(s *Spec) { s.Schema = nil }, "not a JSON object"},
		{"schema is an array", func(s *Spec) { s.Schema = json.RawMessage(`[]`) }, "not a JSON object"},
		{"schema of a string", func(s *Spec) { s.Schema = json.RawMessage(`{"type":"string"}`) }, `must be "object"`},
		{"schema without type", func(s *Spec) { s.Schema = json.RawMessage(`{"properties":{}}`) }, `must be "object"`},
		{"no effect", func(s *Spec) { s.Effect = "" }, "effect"},
		{"unknown effect", func(s *Spec) { s.Effect = "delete" }, `effect "delete"`},
		{"every effect: write", func(s *Spec) { s.Effect = EffectWrite }, ""},
		{"every effect: exec", func(s *Spec) { s.Effect = EffectExec }, ""},
		{"every effect: network", func(s *Spec) { s.Effect = EffectNetwork }, ""},
		{"every effect: control", func(s *Spec) { s.Effect = EffectControl }, ""},
		{"subjects", func(s *Spec) {
			s.Subjects = []Subject{ReadsPath("path"), WritesPath("dst"), FetchesURL("url"), RunsCommand("command", "", "", "", "")}
		}, ""},
		{"subject without argument", func(s *Spec) { s.Subjects = []Subject{ReadsPath("path"), WritesPath("")} }, "names no argument"},
		{"command subject without command", func(s *Spec) { s.Subjects = []Subject{RunsCommand("", "cwd", "", "", "")} }, "names no argument"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := validSpec()
			tt.change(&s)
			err := s.validate()
			switch {
			case tt.wantErr == "" && err != nil:
				t.Errorf("validate() = %v, want nil", err)
			case tt.wantErr != "" && (err == nil || !strings.Contains(err.Error(), tt.wantErr)):
				t.Errorf("validate() = %v, want an error containing %q", err, tt.wantErr)
			}
		})
	}
}

func TestNewServerRefusesBadToolsets(t *testing.T) {
	run := func(*Context, struct{}) (*Result, error) { return nil, nil }
	tool := func(name string) Tool { return Define(Spec{Name: name, Description: "d", Effect: EffectRead}, run) }
	tests := []struct {
		name    string
		tools   []Tool
		wantErr string
	}{
		{"distinct names", []Tool{tool("a"), tool("b")}, ""},
		{"no tools", nil, ""},
		{"duplicate name", []Tool{tool("a"), tool("b"), tool("a")}, "tool a is registered twice"},
		{"invalid spec", []Tool{tool("a"), tool("bad name")}, `"bad name" must match`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := newServer(Toolset{Name: "ts", Version: "1.0.0"}, tt.tools, nil, hclog.NewNullLogger())
			if tt.wantErr == "" {
				if err != nil || len(s.specs) != len(tt.tools) {
					t.Fatalf("newServer = %v, %v; want a server with %d specs", s, err, len(tt.tools))
				}
				return
			}
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("newServer error = %v, want one containing %q", err, tt.wantErr)
			}
		})
	}
}
