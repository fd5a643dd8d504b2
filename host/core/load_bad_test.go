package core

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"demiurge.dev/catalog"
)

// badCases covers every file in testdata/bad: the error must name the
// file, the line, the dotted field and say what is wrong.
var badCases = []struct {
	file  string
	line  int
	field string
	msg   string
}{
	{"empty.yaml", 0, "", "agent.yaml is empty"},
	{"comments_only.yaml", 0, "", "agent.yaml is empty"},
	// The YAML parser reports the line of the construct it was inside,
	// counted from 0 for parser errors: here the "[" opened on line 2.
	{"syntax.yaml", 1, "", "invalid YAML: did not find expected ',' or ']'"},
	{"not_mapping.yaml", 1, "", "want a mapping with the keys name, toolsets"},
	{"unknown_top_key.yaml", 2, "toolset", `unknown key "toolset" (did you mean "toolsets"?); valid keys: name, toolsets, slots`},
	{"unknown_toolset.yaml", 3, "toolsets[1]", `unknown toolset "codng" (did you mean "coding"?); built-in toolsets: coding, demiurge_control, schedule`},
	{"bad_toolset_name.yaml", 1, "toolsets[0]", `unknown toolset "Bad.Name"`},
	// A reference toolset or tool this build lacks is refused, not
	// accepted with nothing behind it.
	{"deferred_unbuilt.yaml", 5, "tools.deferred[1]", "future_tool is in the Tools reference (toolset demiurge_control), but this build does not implement it yet, so there is nothing to defer"},
	{"metadata_unbuilt.yaml", 4, "tools.metadata.future_tool", "future_tool is in the Tools reference (toolset demiurge_control), but this build does not implement it yet"},
	{"duplicate_toolset.yaml", 1, "toolsets[2]", `duplicate toolset "coding" (first at line 1)`},
	{"toolsets_not_list.yaml", 1, "toolsets", `want a list, got the string "coding"`},
	{"toolsets_null.yaml", 2, "toolsets", "want a list, got nothing (null)"},
	{"name_number.yaml", 1, "name", "want a string, got the number 42; quote it if you mean text"},
	{"name_control_char.yaml", 1, "name", `contains the control character '\t'`},
	{"duplicate_key.yaml", 3, "toolsets", `duplicate key "toolsets" (first at line 1)`},
	{"non_string_key.yaml", 2, "", "keys must be plain names, got the number 1"},
	{"bad_risk.yaml", 10, "tools.metadata.web_extract.risk", `unknown risk "lowest" (want low, medium or high)`},
	{"bad_approval_policy.yaml", 4, "tools.metadata.write_file.approval_policy", `unknown approval policy "never" (want auto, prompt or deny)`},
	{"bad_display_policy.yaml", 4, "tools.metadata.read_file.display_policy", `display_policy "loud" is not one of quiet, summary, full`},
	{"bad_model_output_policy.yaml", 4, "tools.metadata.read_file.model_output_policy", `model_output_policy "tail" is not one of content, display, status`},
	{"unknown_metadata_key.yaml", 4, "tools.metadata.write_file.aproval_policy", `unknown metadata key "aproval_policy" (did you mean "approval_policy"?)`},
	{"enabled_not_bool.yaml", 4, "tools.metadata.write_file.enabled", `want true or false, got the string "no"`},
	{"empty_override.yaml", 3, "tools.metadata.project_note", "is an empty override"},
	{"override_not_mapping.yaml", 3, "tools.metadata.project_note", `want a mapping, got the string "high"`},
	{"bad_tool_name.yaml", 3, "tools.metadata.web extract", `"web extract" is not a tool name`},
	{"unknown_tools_key.yaml", 2, "tools.metdata", `unknown key "metdata" (did you mean "metadata"?)`},
	{"unknown_slot.yaml", 2, "slots.tool", `unknown slot "tool" (did you mean "tools"?); valid slots: tools, mcp, skills`},
	{"slot_escape.yaml", 2, "slots.tools", `"../good/full/agent/tools" leaves the core directory`},
	{"slot_absolute_outside.yaml", 2, "slots.mcp", `"/etc" is outside the core directory`},
	{"slot_missing.yaml", 2, "slots.tools", `directory "agent/tools"`},
	{"slot_not_dir.yaml", 2, "slots.mcp", "is not a directory"},
	{"secret_wildcard.yaml", 3, "capabilities[1]", `"secret.bind:*" is refused`},
	{"empty_capability.yaml", 1, "capabilities[1]", "is empty"},
	{"duplicate_capability.yaml", 4, "capabilities[2]", `duplicate capability "fs.read" (first at line 2)`},
	{"capability_not_string.yaml", 3, "capabilities[1]", "want a string, got a mapping"},
	{"approval_no_tool.yaml", 2, "approvals[0]", `approval rule "allow" names no tool`},
	{"approval_bad_action.yaml", 3, "approvals[1]", `unknown approval action "alow" (did you mean "allow"?)`},
	{"approval_wildcard.yaml", 2, "approvals[0]", `"*" is not a tool name`},
	{"approval_empty_pattern.yaml", 2, "approvals[0]", "has an empty pattern"},
	{"alias.yaml", 2, "capabilities", "YAML aliases (*sets) are not allowed"},
	{"merge_key.yaml", 5, "tools.metadata.patch", "YAML merge keys (<<) are not allowed"},
	{"two_documents.yaml", 2, "", "holds a second YAML document"},
	{"workspace_missing.yaml", 2, "workspace", `directory "no-such-workspace"`},
	{"workspace_number.yaml", 1, "workspace", "want a string, got the number 7"},
}

func TestLoadBad(t *testing.T) {
	// Every reference tool is built; *_unbuilt.yaml name a stand-in.
	defer catalog.SetUnbuiltForTest([]catalog.Unbuilt{{Toolset: "demiurge_control", Tool: "future_tool", Capability: "tool.call:future_tool"}})()
	for _, tc := range badCases {
		t.Run(strings.TrimSuffix(tc.file, ".yaml"), func(t *testing.T) {
			path, err := filepath.Abs(filepath.Join("testdata", "bad", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			c, err := LoadFile(path)
			if err == nil {
				t.Fatalf("LoadFile(%s) = %+v, want an error", tc.file, c)
			}
			var le *LoadError
			if !errors.As(err, &le) {
				t.Fatalf("error %v is %T, want *LoadError", err, err)
			}
			if le.File != path {
				t.Errorf("File = %q, want %q", le.File, path)
			}
			if le.Line != tc.line {
				t.Errorf("Line = %d, want %d (%v)", le.Line, tc.line, err)
			}
			if le.Field != tc.field {
				t.Errorf("Field = %q, want %q (%v)", le.Field, tc.field, err)
			}
			if !strings.Contains(le.Msg, tc.msg) {
				t.Errorf("Msg = %q, want it to contain %q", le.Msg, tc.msg)
			}
			if tc.line > 0 && tc.field != "" {
				if le.Column == 0 {
					t.Errorf("Column = 0 for an error tied to a node (%v)", err)
				}
				if !strings.Contains(err.Error(), ": "+tc.field+": ") {
					t.Errorf("Error() = %q does not name the field %q", err, tc.field)
				}
			}
		})
	}
}

// TestBadFixturesCovered keeps testdata/bad and badCases in step: a bad
// example without an expectation would prove nothing.
func TestBadFixturesCovered(t *testing.T) {
	entries, err := os.ReadDir(filepath.Join("testdata", "bad"))
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{}
	for _, tc := range badCases {
		covered[tc.file] = true
	}
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".yaml") && !covered[e.Name()] {
			t.Errorf("testdata/bad/%s has no case in badCases", e.Name())
		}
		delete(covered, e.Name())
	}
	for f := range covered {
		t.Errorf("badCases names %s, which is not in testdata/bad", f)
	}
}
