package main

import (
	"bytes"
	_ "embed"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"
	"unicode/utf8"

	"demiurge.dev/plugins/coding/terminal"
	"demiurge.dev/sdk"
	"demiurge.dev/shared/sandbox"
)

//go:embed terminal.md
var terminalDoc string

// Bounds of a terminal call.
const (
	DefaultTimeoutSeconds = 120
	MaxTimeoutSeconds     = 3600
	// MaxCommandBytes is far above any command line a person writes and
	// below the kernel's limit for one argument (128 KiB).
	MaxCommandBytes = 64 << 10
)

type terminalParams struct {
	Command        string            `json:"command" jsonschema_description:"The shell command line to run."`
	Cwd            string            `json:"cwd,omitempty" jsonschema_description:"Working directory inside the workspace (default: the workspace root)."`
	Env            map[string]string `json:"env,omitempty" jsonschema_description:"Extra environment variables for this command."`
	Timeout        *int              `json:"timeout,omitempty" jsonschema_description:"Seconds before the command's process tree is ended (default 120, at most 3600)."`
	Background     bool              `json:"background,omitempty" jsonschema_description:"Start as a background task and return its id at once."`
	Network        bool              `json:"network,omitempty" jsonschema_description:"Ask for outbound network access for this command (always asks for approval; without it commands run offline)."`
	SecretBindings []secretBinding   `json:"secret_bindings,omitempty" jsonschema_description:"Host secrets to pass in the environment (foreground only)."`
}

type secretBinding struct {
	Source           string `json:"source" jsonschema_description:"env:NAME, the host environment variable holding the secret."`
	Target           string `json:"target,omitempty" jsonschema_description:"The variable name the command sees (default: NAME)."`
	ExpiresInSeconds *int   `json:"expires_in_seconds,omitempty" jsonschema_description:"Seconds until the binding expires; the command is ended then."`
}

// terminalTool runs commands through one Runner, which owns their process
// trees and ends them when the plugin stops.
type terminalTool struct {
	runner *terminal.Runner
	spec   sdk.Spec
}

func newTerminal(runner *terminal.Runner) sdk.Tool {
	return &terminalTool{runner: runner, spec: sdk.Spec{
		Name:        "terminal",
		Description: terminalDoc,
		Schema:      sdk.SchemaOf[terminalParams](),
		Metadata:    sdk.Metadata{Risk: "high", Capability: "terminal.exec", ApprovalPolicy: "prompt", DisplayPolicy: "full"},
		Effect:      sdk.EffectExec,
		Subjects:    []sdk.Subject{sdk.RunsCommand("command", "cwd", "env", "background", "timeout")},
	}}
}

func (t *terminalTool) Spec() sdk.Spec { return t.spec }

// Execute runs one command once its arguments, cwd and environment are
// checked.
func (t *terminalTool) Execute(ctx *sdk.Context, args json.RawMessage) (*sdk.Result, error) {
	arrived := time.Now()
	// A workspace that is not there is the host's problem, not the model's.
	root, err := workspaceRoot(ctx.Workspace)
	if err != nil {
		return nil, err
	}
	p, timeout, bad := parseTerminalArgs(args)
	if bad != nil {
		return bad, nil
	}
	dir, err := commandDir(root, p.Cwd)
	if err != nil {
		return sdk.Errorf("invalid_cwd", "%v", err), nil
	}
	if ctx.Env == nil {
		// Never fall back to the plugin's own environment.
		return sdk.Errorf("no_environment", "the host passed no environment for the command; the call was not run"), nil
	}
	if target := refusedTarget(ctx.Secrets); target != "" {
		// The host refuses these already; a plugin does not trust a
		// request to replace how programs are found or loaded.
		return nil, fmt.Errorf("the host bound a secret to %q, which the terminal never sets", target)
	}
	req := terminal.Request{
		Command: p.Command, Dir: dir, Root: root, Env: withTimezone(childEnv(ctx.Env, ctx.Secrets), ctx.Timezone), Secrets: ctx.Secrets,
		Redact:  ctx.Redact,
		Timeout: timeout, ArtifactRoot: ctx.ArtifactRoot, OutputCap: ctx.OutputCap, Emit: ctx,
	}
	if ctx.SecretsExpire > 0 {
		req.ExpireAt = arrived.Add(ctx.SecretsExpire)
	}
	if ctx.SandboxPolicy != "" {
		// The host decided a sandbox: run under it or not at all.
		sp, err := sandbox.DecodePolicy(ctx.SandboxPolicy)
		if err != nil {
			return nil, fmt.Errorf("the host sent a sandbox policy the terminal cannot read: %w", err)
		}
		helper := sp.Helper
		if helper == "" {
			helper = terminal.HelperBeside()
		}
		req.Sandbox, req.SandboxHelper = &sp, helper
	}
	res, err := t.runner.Run(ctx, req)
	if err != nil {
		return sdk.Errorf("start_failed", "the command could not be started: %v", err), nil
	}
	return terminalResult(p, ctx.Workspace, dir, timeout, res), nil
}

// parseTerminalArgs decodes and checks the model's arguments. It looks at
// the raw bytes first: json.Unmarshal would quietly turn invalid UTF-8
// into U+FFFD.
func parseTerminalArgs(args []byte) (terminalParams, time.Duration, *sdk.Result) {
	var p terminalParams
	if !utf8.Valid(args) {
		return p, 0, sdk.Errorf("invalid_argument", "the arguments are not valid UTF-8; send the command as text")
	}
	dec := json.NewDecoder(bytes.NewReader(args))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&p); err != nil {
		return p, 0, sdk.Errorf("invalid_argument", "terminal arguments do not fit the schema: %v", err)
	}
	if dec.More() {
		return p, 0, sdk.Errorf("invalid_argument", "terminal arguments must be one JSON object")
	}
	timeout, bad := checkTerminalParams(p)
	return p, timeout, bad
}

// checkTerminalParams refuses what cannot be run, with a message the model
// can act on, and returns the timeout to use.
func checkTerminalParams(p terminalParams) (time.Duration, *sdk.Result) {
	switch {
	case strings.TrimSpace(p.Command) == "":
		return 0, sdk.Errorf("invalid_argument", "command is empty; give the shell command line to run")
	case len(p.Command) > MaxCommandBytes:
		return 0, sdk.Errorf("invalid_argument", "command is %d bytes; the most is %d. Write a long script to a file and run that file", len(p.Command), MaxCommandBytes)
	case strings.ContainsRune(p.Command, 0):
		return 0, sdk.Errorf("invalid_argument", "command contains a NUL byte, which no shell can receive; remove it")
	case strings.ContainsRune(p.Command, utf8.RuneError):
		return 0, sdk.Errorf("invalid_argument", "command contains U+FFFD (invalid UTF-8 was replaced); send the command as valid text")
	case p.Background && len(p.SecretBindings) > 0:
		return 0, sdk.Errorf("invalid_argument", "secret_bindings work only in the foreground; drop background or the bindings")
	}
	secs := DefaultTimeoutSeconds
	if p.Timeout != nil {
		secs = *p.Timeout
	}
	if secs <= 0 || secs > MaxTimeoutSeconds {
		return 0, sdk.Errorf("invalid_argument", "timeout must be 1 to %d seconds (default %d), got %d", MaxTimeoutSeconds, DefaultTimeoutSeconds, secs)
	}
	return time.Duration(secs) * time.Second, nil
}

// workspaceRoot is the workspace with its symlinks resolved.
func workspaceRoot(workspace string) (string, error) {
	if workspace == "" || !filepath.IsAbs(workspace) {
		return "", fmt.Errorf("the call has no absolute workspace root (got %q)", workspace)
	}
	root, err := filepath.EvalSymlinks(workspace)
	if err != nil {
		return "", fmt.Errorf("workspace root: %w", err)
	}
	return root, nil
}

// commandDir resolves cwd against the workspace root (symlinks already
// resolved), following symlinks, and refuses anything that ends up
// outside it.
func commandDir(root, cwd string) (string, error) {
	if strings.ContainsRune(cwd, 0) {
		return "", fmt.Errorf("cwd contains a NUL byte")
	}
	dir := cwd
	switch {
	case dir == "":
		dir = root
	case !filepath.IsAbs(dir):
		dir = filepath.Join(root, dir)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("cwd %q does not exist; give a directory inside the workspace", cwd)
	}
	if real != root && !strings.HasPrefix(real, root+string(filepath.Separator)) {
		return "", fmt.Errorf("cwd %q is outside the workspace (symlinks are followed); give a directory inside it", cwd)
	}
	if st, err := os.Stat(real); err != nil || !st.IsDir() {
		return "", fmt.Errorf("cwd %q is not a directory", cwd)
	}
	return real, nil
}

// refusedTarget is the first secret target that is not a plain variable
// name or that controls how programs are found or loaded; "" if none.
func refusedTarget(secrets map[string]string) string {
	for target := range secrets {
		upper := strings.ToUpper(target)
		switch {
		case target == "" || strings.ContainsAny(target, "= \x00") || target[0] >= '0' && target[0] <= '9':
			return target
		case upper == "PATH" || upper == "HOME" || upper == "BASH_ENV" || upper == "ENV" || upper == "SHELLOPTS" ||
			upper == "PROMPT_COMMAND" || upper == "IFS" || strings.HasPrefix(upper, "LD_") || strings.HasPrefix(upper, "DYLD_") ||
			strings.HasPrefix(upper, "BASH_FUNC_"):
			return target
		}
	}
	return ""
}

// childEnv is the host-built environment with the bound secrets set by
// target, each replacing a variable of the same name.
// withTimezone sets TZ to the configured zone (":" + zone would also do;
// the plain name is what tzset reads from the system's zoneinfo).
func withTimezone(env []string, zone string) []string {
	if zone == "" {
		return env
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TZ=") {
			out = append(out, kv)
		}
	}
	return append(out, "TZ="+zone)
}

func childEnv(env []string, secrets map[string]string) []string {
	out := make([]string, 0, len(env)+len(secrets))
	for _, kv := range env {
		k, _, _ := strings.Cut(kv, "=")
		if _, bound := secrets[k]; !bound {
			out = append(out, kv)
		}
	}
	for target, value := range secrets {
		out = append(out, target+"="+value)
	}
	return out
}

// terminalStructured is the result's structured form: the Runner's
// result with what was asked.
type terminalStructured struct {
	*terminal.Result
	Command        string `json:"command"`
	Cwd            string `json:"cwd"`
	TimeoutSeconds int    `json:"timeout_seconds"`
	Background     bool   `json:"background"`
	// SandboxUndid are what the sandbox helper undid after the command
	// ended (see sandboxUndid), one line each; the host audits them.
	SandboxUndid []string `json:"sandbox_undid,omitempty"`
}

func terminalResult(p terminalParams, workspace, dir string, timeout time.Duration, r *terminal.Result) *sdk.Result {
	shownCwd := relCwd(workspace, dir)
	undid := sandboxUndid(r)
	res := &sdk.Result{
		Content: modelView(r, undid),
		Structured: terminalStructured{Result: r, Command: p.Command, Cwd: shownCwd,
			TimeoutSeconds: int(timeout / time.Second), Background: p.Background, SandboxUndid: undid},
	}
	switch r.ExitReason {
	case terminal.ReasonTimeout, terminal.ReasonExpired, terminal.ReasonCancelled, terminal.ReasonFailed:
		res.IsError, res.ErrorCode = true, r.ExitReason
	}
	if len(undid) > 0 && !res.IsError {
		// Part of what the command did is gone: never a plain success.
		res.IsError, res.ErrorCode = true, "sandbox_undid"
	}
	return res.WithDisplay(displayView(p.Command, shownCwd, r, undid))
}

// undidPrefix starts each line the sandbox helper writes on the command's
// stderr for a path it moved aside (shared/sandbox creation_linux.go).
const undidPrefix = "demiurge-sandbox: the command created "

// sandboxUndid are the helper's lines at the end of a sandboxed command's
// stderr. The helper writes them after the command and every process it
// left have ended, so nothing the command printed can follow them or hide
// them; a command that prints such a line itself only reports an undo
// that did not happen.
func sandboxUndid(r *terminal.Result) []string {
	if r.Sandbox == "" || r.Sandbox == "off" {
		return nil
	}
	lines := strings.Split(strings.TrimRight(r.Stderr.Tail, "\n"), "\n")
	var out []string
	for i := len(lines) - 1; i >= 0 && strings.HasPrefix(lines[i], undidPrefix); i-- {
		out = append([]string{strings.TrimPrefix(lines[i], "demiurge-sandbox: ")}, out...)
	}
	return out
}

// modelView keeps the exit/output shape: a JSON object with the exit code,
// the output tails and, when something is missing, a note saying what.
func modelView(r *terminal.Result, undid []string) string {
	v := map[string]any{"exit_code": r.ExitCode, "output": r.Stdout.Tail}
	if r.Stderr.Bytes > 0 {
		v["stderr"] = r.Stderr.Tail
	}
	if r.ExitReason != terminal.ReasonExited {
		v["exit_reason"] = r.ExitReason
	}
	if r.Signal != "" {
		v["signal"] = r.Signal
	}
	var notes []string
	for _, s := range []struct {
		name string
		sr   terminal.StreamResult
	}{{"stdout", r.Stdout}, {"stderr", r.Stderr}} {
		if s.sr.Truncated {
			notes = append(notes, fmt.Sprintf("%s shows only its last %d of %d characters", s.name, utf8.RuneCountInString(s.sr.Tail), s.sr.Chars))
		}
		if s.sr.DroppedBytes > 0 {
			notes = append(notes, droppedNote(s.name, s.sr))
		}
	}
	switch r.ExitReason {
	case terminal.ReasonTimeout:
		notes = append(notes, "the command ran out of time and its process tree was ended; raise timeout or run it in the background")
	case terminal.ReasonExpired:
		notes = append(notes, "a secret binding expired and the command's process tree was ended")
	case terminal.ReasonCancelled:
		notes = append(notes, "the call was cancelled and the command's process tree was ended")
	case terminal.ReasonFailed:
		notes = append(notes, "the output could not be stored completely: "+r.Error)
	}
	if n := sandboxRefusedNote(r); n != "" {
		notes = append(notes, n)
	}
	if len(undid) > 0 {
		v["sandbox_undid"] = undid
		notes = append(notes, "the sandbox undid part of what the command did (sandbox_undid): git would have read it and the command may not write it; ask the operator if it is needed")
	}
	if len(notes) > 0 {
		v["note"] = strings.Join(notes, "; ")
	}
	var b strings.Builder
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false) // <redacted:X> stays readable
	_ = enc.Encode(v)        // strings, ints and bools only
	return strings.TrimSuffix(b.String(), "\n")
}

// displayView is the operator's card: command and cwd first, then exit
// code, stdout and stderr.
func displayView(command, cwd string, r *terminal.Result, undid []string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "$ %s\ncwd: %s\nexit code: %d", command, cwd, r.ExitCode)
	if r.ExitReason != terminal.ReasonExited {
		fmt.Fprintf(&b, " (%s", r.ExitReason)
		if r.Signal != "" {
			fmt.Fprintf(&b, ", %s", r.Signal)
		}
		b.WriteString(")")
	}
	b.WriteString("\n")
	for _, s := range []struct {
		name string
		sr   terminal.StreamResult
	}{{"stdout", r.Stdout}, {"stderr", r.Stderr}} {
		fmt.Fprintf(&b, "%s (%d bytes", s.name, s.sr.Bytes)
		if s.sr.Truncated {
			fmt.Fprintf(&b, ", last %d characters", utf8.RuneCountInString(s.sr.Tail))
		}
		b.WriteString("):\n")
		if s.sr.DroppedBytes > 0 {
			b.WriteString(droppedNote(s.name, s.sr) + "\n")
		}
		b.WriteString(s.sr.Tail)
		if s.sr.Tail != "" && !strings.HasSuffix(s.sr.Tail, "\n") {
			b.WriteString("\n")
		}
	}
	if r.Error != "" {
		fmt.Fprintf(&b, "error: %s\n", r.Error)
	}
	// The OS sandbox the command actually ran under, "off" included.
	fmt.Fprintf(&b, "sandbox: %s\n", r.Sandbox)
	if n := sandboxRefusedNote(r); n != "" {
		fmt.Fprintf(&b, "FAILED: %s\n", n)
	}
	for _, u := range undid {
		fmt.Fprintf(&b, "UNDONE by the sandbox: %s\n", u)
	}
	return b.String()
}

// sandboxRefusedNote explains exit 126 ("found but could not be
// executed") of a sandboxed command: the usual cause there is the
// sandbox denying a program outside what it opens (Landlock answers
// EACCES), which the shell reports as a bare "Permission denied".
func sandboxRefusedNote(r *terminal.Result) string {
	if r.ExitCode != 126 || r.ExitReason != terminal.ReasonExited || r.Sandbox == "" || r.Sandbox == "off" {
		return ""
	}
	return "exit 126: a program could not be executed; under the " + r.Sandbox + " sandbox only the workspace, the system directories, the PATH's toolchains and DEMIURGE_SANDBOX_READ may be read and executed, so a program elsewhere is refused by the sandbox (demiurge sandbox status lists what is open; the operator can add a directory to DEMIURGE_SANDBOX_READ)"
}

// droppedNote says how much of a stream its artifact could not keep.
func droppedNote(name string, sr terminal.StreamResult) string {
	return fmt.Sprintf("%s: %d bytes past the output cap of %d bytes were dropped; the artifact keeps the first %d", name, sr.DroppedBytes, sr.CapBytes, sr.Bytes-sr.DroppedBytes)
}

// relCwd shows cwd relative to the workspace ("." for the root).
func relCwd(workspace, dir string) string {
	root, err := filepath.EvalSymlinks(workspace)
	if err != nil {
		return dir
	}
	if rel, err := filepath.Rel(root, dir); err == nil {
		return filepath.ToSlash(rel)
	}
	return dir
}
