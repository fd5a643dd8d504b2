package toolhost

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"strings"
	"time"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/sandboxing"
	"demiurge.dev/shared/sandbox"
	"demiurge.dev/shared/toolsetv1"
)

// EditorTerminalTool runs a command in the editor's terminal. Every call
// is the operator's to answer (approval.Resolver.AlwaysAsk) and its card
// says so: the command runs in the editor, outside Demiurge's sandbox.
const EditorTerminalTool = "editor_terminal"

// EditorTerminalCard is the editor terminal's approval card sandbox line.
const EditorTerminalCard = "NONE: runs UNSANDBOXED in the editor's terminal, with the editor's file access and network (Demiurge's sandbox does not apply)"

// editorTerminalOutput bounds what the editor keeps of a command's output
// (it drops the start past it): the terminal tool's view is about as long.
const editorTerminalOutput = 64 << 10

// editorTerminalWait bounds each request after the command's end or kill
// (output, release, kill): an editor that stops answering fails the call.
const editorTerminalWait = 10 * time.Second

// commandsUnconfined says whether an approved command of this host runs
// outside the OS sandbox anyway (none configured, --sandbox off, or a
// mode the kernel cannot enforce without sandbox.require): only then is
// the editor's terminal offered. In a sandboxed session it would be a way
// around the sandbox, and dispatch's card and audit would name a sandbox
// the editor's command never ran in.
func commandsUnconfined(c sandboxing.Config) bool {
	if c.Mode == "" {
		return true
	}
	m := c.ModeFor(false)
	if m == sandbox.Off {
		return true
	}
	return !c.Require && c.Unenforceable(m) != ""
}

// editorTerminalSpec is the terminal tool's policy on the editor's
// terminal: its capability and command subject (the shell guard judges
// the command), cwd the workspace, no environment overlay, no secret
// binding, no background. Its approval is asked of the operator every
// time (AlwaysAsk), whatever the policy says.
func editorTerminalSpec() catalog.ToolSpec {
	return catalog.ToolSpec{
		Name: EditorTerminalTool,
		Description: "Run a shell command in the operator's editor's terminal, in the workspace, and return its output " +
			"(the last 64 KiB) and exit status. It runs outside Demiurge's sandbox, so every call is asked of the operator; " +
			"prefer the terminal tool, and use this one only when the command must run in the editor.",
		InputSchema: json.RawMessage(`{"type":"object","properties":{` +
			`"command":{"type":"string","description":"The shell command (bash)."},` +
			`"timeout":{"type":"integer","minimum":1,"maximum":3600,"description":"Seconds before the command is killed (default 120)."}},` +
			`"required":["command"],"additionalProperties":false}`),
		Metadata: catalog.Metadata{Risk: catalog.RiskHigh, Capability: "terminal.exec", ApprovalPolicy: catalog.ApprovalPrompt, DisplayPolicy: "full"},
		Effect:   catalog.EffectExec,
		Subjects: []catalog.Subject{{Kind: catalog.SubjectCommand, Arg: "command", TimeoutArg: "timeout"}},
	}
}

// runTerminal runs an admitted editor_terminal call in the editor:
// terminal/create (the host-built environment only, through env -i, so
// nothing of the editor's environment reaches the command), wait for its
// exit within the timeout (else terminal/kill), terminal/output, and
// terminal/release in every case once created.
func (a editorAdapter) runTerminal(ctx context.Context, inv dispatch.Invocation) (*toolsetv1.ToolResult, error) {
	var args struct {
		Command string `json:"command"`
		Timeout *int   `json:"timeout"`
	}
	if err := json.Unmarshal(inv.Args, &args); err != nil {
		return nil, fmt.Errorf("%s: arguments: %v", inv.Tool, err)
	}
	// Belt and braces: the tool is offered only where commands run
	// unconfined, and the editor cannot apply a sandbox policy.
	if inv.SandboxPolicy != "" {
		return editorError(fmt.Errorf("the host would run this command in its OS sandbox, which the editor's terminal cannot apply")), nil
	}
	if len(inv.Secrets) > 0 {
		return editorError(fmt.Errorf("the editor's terminal takes no secret bindings")), nil
	}
	if inv.Workspace == "" || len(inv.Env) == 0 {
		return nil, fmt.Errorf("%s: the host gave no workspace or environment; this is a host bug", inv.Tool)
	}
	timeout := 120 * time.Second
	if args.Timeout != nil {
		timeout = time.Duration(*args.Timeout) * time.Second
	}
	envBin, shell := dispatch.LookPath(inv.Env, "env"), dispatch.LookPath(inv.Env, "bash")
	if shell == "" {
		shell = dispatch.LookPath(inv.Env, "sh")
	}
	if envBin == "" || shell == "" {
		return editorError(fmt.Errorf("env or a shell is not on the command's PATH")), nil
	}
	argv := append([]string{"-i"}, inv.Env...)
	argv = append(argv, shell, "-c", args.Command)
	limit := editorTerminalOutput
	if inv.OutputCap > 0 && inv.OutputCap < int64(limit) {
		limit = int(inv.OutputCap)
	}
	raw, err := a.e.Do(ctx, "terminal/create", map[string]any{
		"command": envBin, "args": argv, "cwd": inv.Workspace, "outputByteLimit": limit})
	if err != nil {
		return editorError(err), nil
	}
	var created struct {
		TerminalID string `json:"terminalId"`
	}
	if err := json.Unmarshal(raw, &created); err != nil || created.TerminalID == "" {
		return editorError(fmt.Errorf("the editor's answer to terminal/create has no terminalId")), nil
	}
	id := map[string]any{"terminalId": created.TerminalID}
	// After the wait the calls run on their own short context: a cancelled
	// call still kills and releases the editor's terminal.
	after := func(method string) (json.RawMessage, error) {
		c, cancel := context.WithTimeout(context.WithoutCancel(ctx), editorTerminalWait)
		defer cancel()
		return a.e.Do(c, method, id)
	}
	defer func() { _, _ = after("terminal/release") }()
	waitCtx, cancel := context.WithTimeout(ctx, timeout)
	exitRaw, waitErr := a.e.Do(waitCtx, "terminal/wait_for_exit", id)
	cancel()
	var ended string
	if waitErr != nil {
		if _, err := after("terminal/kill"); err != nil {
			return editorError(fmt.Errorf("the command did not end (%v) and the editor did not kill it: %v", waitErr, err)), nil
		}
		switch {
		case ctx.Err() != nil:
			ended = "cancelled: the editor killed the command"
		case waitCtx.Err() != nil:
			ended = fmt.Sprintf("timed out after %s: the editor killed the command", timeout)
		default:
			return editorError(fmt.Errorf("waiting for the command: %v (the editor killed it)", waitErr)), nil
		}
	}
	outRaw, err := after("terminal/output")
	if err != nil {
		return editorError(fmt.Errorf("the command's output: %v", err)), nil
	}
	var out struct {
		Output    string `json:"output"`
		Truncated bool   `json:"truncated"`
	}
	if err := json.Unmarshal(outRaw, &out); err != nil {
		return editorError(fmt.Errorf("the editor's answer to terminal/output: %v", err)), nil
	}
	if ended == "" {
		var st struct {
			ExitCode *int    `json:"exitCode"`
			Signal   *string `json:"signal"`
		}
		_ = json.Unmarshal(exitRaw, &st)
		ended = exitText(st.ExitCode, st.Signal)
	}
	if len(out.Output) > limit {
		out.Output, out.Truncated = out.Output[len(out.Output)-limit:], true
	}
	var b strings.Builder
	if out.Truncated {
		fmt.Fprintf(&b, "[the editor kept only the last %d bytes of the output]\n", limit)
	}
	b.WriteString(out.Output)
	if out.Output != "" && !strings.HasSuffix(out.Output, "\n") {
		b.WriteByte('\n')
	}
	fmt.Fprintf(&b, "[ran in the editor's terminal, unsandboxed: %s]", ended)
	structured, _ := json.Marshal(map[string]any{"ran_in": "editor_terminal", "sandbox": "none", "ended": ended, "truncated": out.Truncated})
	return &toolsetv1.ToolResult{Content: b.String(), IsError: ended != "exit code 0", Structured: structured}, nil
}

func exitText(code *int, signal *string) string {
	switch {
	case code != nil:
		return fmt.Sprintf("exit code %d", *code)
	case signal != nil:
		return "killed by " + *signal
	}
	return "ended, the editor gave no exit status"
}

// alwaysAskTerminal is the turn's resolver with every editor_terminal
// call asked of the operator, its card naming the missing sandbox.
func alwaysAskTerminal(r *approval.Resolver) *approval.Resolver {
	c := approval.Resolver{}
	if r != nil {
		c = *r
	}
	c.AlwaysAsk = maps.Clone(c.AlwaysAsk)
	if c.AlwaysAsk == nil {
		c.AlwaysAsk = map[string]string{}
	}
	c.AlwaysAsk[EditorTerminalTool] = EditorTerminalCard
	return &c
}
