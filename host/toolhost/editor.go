package toolhost

import (
	"context"
	"encoding/json"
	"fmt"

	"demiurge.dev/catalog"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/shared/toolsetv1"
)

// Editor is a session's front end's editor (an ACP client): what it
// offers, and the call that makes it do an admitted editor tool's effect.
// Nothing reaches it but through dispatch: the editor tools are catalog
// entries like any other (schema, capability, path policy, approval,
// redaction, audit), and their adapter is the only caller of Do.
type Editor interface {
	Offers() EditorOffers
	// Do asks the editor to run method (an ACP client method) with
	// params; it answers the method's result or why it did not.
	Do(ctx context.Context, method string, params any) (json.RawMessage, error)
}

// EditorOffers are the editor capabilities a front end declared.
type EditorOffers struct {
	ReadTextFile, WriteTextFile, Terminal bool
}

// EditorToolset names the editor tools' source.
const EditorToolset = "editor"

// maxEditorText bounds a buffer read or written through the editor (the
// arguments' limit is the same).
const maxEditorText = 256 << 10

// SetEditor gives the session its front end's editor: its next catalog
// holds the editor tools that editor offers.
func (s *Session) SetEditor(e Editor) {
	s.mu.Lock()
	was := s.editor
	s.editor = e
	s.mu.Unlock()
	if was != nil || e != nil {
		s.catalogs.clear()
	}
}

func (s *Session) theEditor() Editor {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.editor
}

// editorSource is the session's editor tools, none without an editor. They
// are the built-in read_file and write_file's policy on the editor's
// buffers: the same capability, risk, approval policy and path subject.
// editor_terminal is the terminal tool's policy on the editor's terminal.
// All three are offered only where approved commands run unconfined
// anyway (commandsUnconfined, unconfined). For the file tools: the host
// judges the path when the call is admitted, and the editor, a process
// outside the sandbox, opens it later, following whatever links are
// there by then; a sandboxed command (a background one, or one the
// model starts beside the call) can turn a checked directory of the
// workspace into a link to $HOME between the two, so a read admitted
// as notes/a.txt returns ~/.aws/credentials and a write approved as
// notes/.bashrc lands in ~/.bashrc. The built-in tools open through the
// workspace root (os.Root, openat with O_NOFOLLOW) and are not led
// away; the editor's fs methods take only a path, so nothing the host
// checks holds when the editor opens it. Where commands are unconfined,
// a command reaches those files itself and the editor adds nothing.
func editorSource(e Editor, unconfined bool) (catalog.Source, bool) {
	if e == nil || !unconfined {
		return catalog.Source{}, false
	}
	o := e.Offers()
	src := catalog.Source{Kind: catalog.SourceBuiltin, Name: EditorToolset, Binding: editorAdapter{e}}
	if o.ReadTextFile {
		src.Tools = append(src.Tools, catalog.ToolSpec{
			Name: "editor_read_file",
			Description: "Read a text file as the operator's editor has it, unsaved changes included. " +
				"Use it for files open in the editor; read_file reads the file on disk.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{` +
				`"path":{"type":"string","description":"The file's path, relative to the workspace or absolute."},` +
				`"line":{"type":"integer","minimum":1,"description":"The first line to read (1-based)."},` +
				`"limit":{"type":"integer","minimum":1,"description":"How many lines to read."}},` +
				`"required":["path"],"additionalProperties":false}`),
			Metadata: catalog.Metadata{Risk: catalog.RiskLow, Capability: "fs.read", ApprovalPolicy: catalog.ApprovalAuto, DisplayPolicy: "summary"},
			Effect:   catalog.EffectRead,
			Subjects: []catalog.Subject{{Kind: catalog.SubjectPath, Arg: "path", Access: catalog.AccessRead}},
		})
	}
	if o.WriteTextFile {
		src.Tools = append(src.Tools, catalog.ToolSpec{
			Name: "editor_write_file",
			Description: "Replace a text file's whole content in the operator's editor (its buffer; the editor " +
				"saves it as it does its own edits). Use it for files open in the editor.",
			InputSchema: json.RawMessage(`{"type":"object","properties":{` +
				`"path":{"type":"string","description":"The file's path, relative to the workspace or absolute."},` +
				`"content":{"type":"string","description":"The file's new content, whole."}},` +
				`"required":["path","content"],"additionalProperties":false}`),
			Metadata: catalog.Metadata{Risk: catalog.RiskMedium, Capability: "fs.write", ApprovalPolicy: catalog.ApprovalPrompt, DisplayPolicy: "summary"},
			Effect:   catalog.EffectWrite,
			Subjects: []catalog.Subject{{Kind: catalog.SubjectPath, Arg: "path", Access: catalog.AccessWrite}},
		})
	}
	if o.Terminal {
		src.Tools = append(src.Tools, editorTerminalSpec())
	}
	return src, len(src.Tools) > 0
}

// offersTerminal says whether the session's catalog may hold the editor's
// terminal: its turns then ask every editor_terminal call.
func (s *Session) offersTerminal() bool {
	e := s.theEditor()
	return e != nil && e.Offers().Terminal && commandsUnconfined(s.h.Sandbox)
}

// editorAdapter runs an admitted editor tool call: the editor does it.
type editorAdapter struct{ e Editor }

func (a editorAdapter) Precheck(context.Context, dispatch.Invocation) (*toolsetv1.ToolResult, error) {
	return &toolsetv1.ToolResult{}, nil
}

func (a editorAdapter) Invoke(ctx context.Context, inv dispatch.Invocation) (*toolsetv1.ToolResult, error) {
	if inv.Tool == EditorTerminalTool {
		return a.runTerminal(ctx, inv)
	}
	var args struct {
		Path    string `json:"path"`
		Line    *int   `json:"line"`
		Limit   *int   `json:"limit"`
		Content string `json:"content"`
	}
	if err := json.Unmarshal(inv.Args, &args); err != nil {
		return nil, fmt.Errorf("%s: arguments: %v", inv.Tool, err)
	}
	// The path the host resolved and judged, never the argument as given.
	path := inv.Path("path")
	if path == "" {
		return nil, fmt.Errorf("%s: the host resolved no path; this is a host bug", inv.Tool)
	}
	switch inv.Tool {
	case "editor_read_file":
		raw, err := a.e.Do(ctx, "fs/read_text_file", map[string]any{"path": path, "line": args.Line, "limit": args.Limit})
		if err != nil {
			return editorError(err), nil
		}
		var res struct {
			Content string `json:"content"`
		}
		if err := json.Unmarshal(raw, &res); err != nil {
			return editorError(fmt.Errorf("the editor's answer is not a read_text_file result: %v", err)), nil
		}
		if len(res.Content) > maxEditorText {
			return editorError(fmt.Errorf("the editor's text of %s is %d bytes, over %d: read it with read_file (line and limit)", path, len(res.Content), maxEditorText)), nil
		}
		return &toolsetv1.ToolResult{Content: res.Content}, nil
	case "editor_write_file":
		if _, err := a.e.Do(ctx, "fs/write_text_file", map[string]any{"path": path, "content": args.Content}); err != nil {
			return editorError(err), nil
		}
		return &toolsetv1.ToolResult{Content: fmt.Sprintf("the editor wrote %s: %d bytes", path, len(args.Content))}, nil
	}
	return nil, fmt.Errorf("%s is not an editor tool", inv.Tool)
}

func editorError(err error) *toolsetv1.ToolResult {
	return &toolsetv1.ToolResult{IsError: true, Content: "the editor did not do it: " + err.Error()}
}
