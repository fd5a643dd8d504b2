package main

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"demiurge.dev/sdk"
)

func TestRenderTools(t *testing.T) {
	tools := []toolPayload{
		{Name: "read_file", Source: "builtin:coding", Effect: "read", Risk: "low", Approval: "auto", Requires: []string{"fs.read"},
			Description: "Read a text file.\n\nMore detail."},
		{Name: "write_file", Source: "builtin:coding", Effect: "write", Risk: "medium", Approval: "deny", Requires: []string{"fs.write"},
			Description: "Write a file."},
		{Name: "tools_list", Source: "builtin:demiurge_control", Effect: "read", Risk: "low", Approval: "auto",
			Description: strings.Repeat("x", 150)},
	}
	for _, c := range []struct {
		mode  string
		tools []toolPayload
		want  string
	}{
		{"quiet", tools, "read_file\nwrite_file\ntools_list\n"},
		{"summary", tools, "NAME        SOURCE                    RISK    APPROVAL  DESCRIPTION\n" +
			"read_file   builtin:coding            low     auto      Read a text file.\n" +
			"write_file  builtin:coding            medium  deny      Write a file.\n" +
			"tools_list  builtin:demiurge_control  low     auto      " + strings.Repeat("x", 99) + "…\n"},
		{"full", tools[:2], "read_file\n  source: builtin:coding\n  effect: read\n  risk: low\n  approval: auto\n  requires: fs.read\n" +
			"  description:\n    Read a text file.\n\n    More detail.\n\n" +
			"write_file\n  source: builtin:coding\n  effect: write\n  risk: medium\n  approval: deny\n  requires: fs.write\n" +
			"  description:\n    Write a file.\n"},
		{"summary", nil, "No tools in this turn.\n"},
	} {
		if got := renderTools(c.tools, c.mode); got != c.want {
			t.Errorf("%s of %d tools:\n%s\nwant:\n%s", c.mode, len(c.tools), got, c.want)
		}
	}
}

// Without a host tools_list answers with a tool error, and refuses an
// unknown mode before asking the host.
func TestToolsListWithoutAHost(t *testing.T) {
	for _, c := range []struct{ args, want string }{
		{`{}`, "not available"},
		{`{"mode":"full"}`, "not available"},
		{`{"mode":"loud"}`, "use quiet, summary or full"},
	} {
		res, err := newToolsList().Execute(&sdk.Context{Context: context.Background()}, json.RawMessage(c.args))
		if err != nil || !res.IsError || !strings.Contains(res.Content, c.want) {
			t.Errorf("tools_list %s = %+v, %v; want a tool error with %q", c.args, res, err, c.want)
		}
	}
}
