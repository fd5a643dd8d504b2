package main

import (
	"path/filepath"
	"strings"

	acp "github.com/coder/acp-go-sdk"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/turn"
)

// acpToolKinds are the ACP kinds of the built-in tools; any other tool
// (an MCP server's, an authored one) is "other".
var acpToolKinds = map[string]acp.ToolKind{
	"read_file": acp.ToolKindRead, "skill_view": acp.ToolKindRead, "skills_list": acp.ToolKindRead,
	"write_file": acp.ToolKindEdit, "patch": acp.ToolKindEdit, "skill_manage": acp.ToolKindEdit,
	"search_files": acp.ToolKindSearch, "session_search": acp.ToolKindSearch, "search_capabilities": acp.ToolKindSearch,
	"terminal":    acp.ToolKindExecute,
	"web_extract": acp.ToolKindFetch, "web_search": acp.ToolKindFetch,
	"clarify": acp.ToolKindThink, "todo": acp.ToolKindThink,
}

func acpToolKind(tool string) acp.ToolKind {
	if k, ok := acpToolKinds[tool]; ok {
		return k
	}
	if strings.HasPrefix(tool, "web_search") {
		return acp.ToolKindFetch
	}
	return acp.ToolKindOther
}

// toolCallStart is a tool_call event as the editor's tool_call update:
// the card's first line as the title, the kind and the path it touches.
// A write's diff comes with its permission request or its result, where
// the host sends the file's text before and after (FileEdit): the event's
// arguments are cut at 300 bytes and carry no old text.
func toolCallStart(ev turn.Event, workspace string) acp.SessionUpdate {
	opts := []acp.ToolCallStartOpt{acp.WithStartKind(acpToolKind(ev.Tool)), acp.WithStartStatus(acp.ToolCallStatusPending)}
	if ev.Args != nil {
		opts = append(opts, acp.WithStartRawInput(ev.Args))
	}
	if loc := acpLocations(ev.Args, workspace); loc != nil {
		opts = append(opts, acp.WithStartLocations(loc))
	}
	title := firstLine(ev.Card)
	if title == "" {
		title = acpInert(ev.Tool, 200)
	}
	return acp.StartToolCall(acp.ToolCallId(ev.CallID), title, opts...)
}

// toolCallEnd is a tool_result event: completed or failed, with the
// result's operator view (redacted) and, for a write that ran, its diff.
func toolCallEnd(ev turn.Event) acp.SessionUpdate {
	st := acp.ToolCallStatusCompleted
	if ev.IsError {
		st = acp.ToolCallStatusFailed
	}
	var content []acp.ToolCallContent
	if d := acpDiff(ev.Edit); d != nil && !ev.IsError {
		content = append(content, *d)
	}
	if body := strings.TrimRight(ev.Result, "\n"); body != "" {
		content = append(content, acp.ToolContent(acp.TextBlock(body)))
	}
	opts := []acp.ToolCallUpdateOpt{acp.WithUpdateStatus(st)}
	if content != nil {
		opts = append(opts, acp.WithUpdateContent(content))
	}
	return acp.UpdateToolCall(acp.ToolCallId(ev.CallID), opts...)
}

// acpPath is a path argument made absolute against the workspace, the
// way the tools resolve it ("" when args has none).
func acpPath(args map[string]any, workspace string) string {
	p, _ := args["path"].(string)
	if p == "" || strings.Contains(p, "…(+") {
		return ""
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(workspace, p)
	}
	return filepath.Clean(p)
}

func acpLocations(args map[string]any, workspace string) []acp.ToolCallLocation {
	if p := acpPath(args, workspace); p != "" {
		return []acp.ToolCallLocation{{Path: p}}
	}
	return nil
}

// acpDiff is a write's change as the editor's diff: the file's whole text
// before (none for a new file) and after, as the host read and redacted
// them (approval.FileEdit).
func acpDiff(e *approval.FileEdit) *acp.ToolCallContent {
	if e == nil || e.Path == "" {
		return nil
	}
	var d acp.ToolCallContent
	if e.NewFile {
		d = acp.ToolDiffContent(e.Path, e.NewText)
	} else {
		d = acp.ToolDiffContent(e.Path, e.NewText, e.OldText)
	}
	return &d
}
