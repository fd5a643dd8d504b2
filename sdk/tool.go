// Package sdk is all a toolset author imports: describe tools, implement
// Execute, and call Serve from main. The host does schema validation,
// capability checks, approval, redaction and audit before Execute runs.
package sdk

import (
	"encoding/json"
	"fmt"
	"regexp"
)

// Effect is the class of side effect a tool has.
type Effect string

const (
	EffectRead    Effect = "read"
	EffectWrite   Effect = "write"
	EffectExec    Effect = "exec"
	EffectNetwork Effect = "network"
	EffectControl Effect = "control"
)

// Metadata is a tool's registry metadata. The host may make it stricter,
// never looser. Empty fields take the host's defaults (risk medium,
// approval prompt).
type Metadata struct {
	Risk              string // low | medium | high
	Capability        string // the singular gate, e.g. "fs.read"
	ApprovalPolicy    string // auto | prompt | deny
	DisplayPolicy     string // quiet | summary | full
	ModelOutputPolicy string
	// Capabilities are effect capabilities Execute may ask for with
	// Context.Require; they never satisfy the singular gate.
	Capabilities []string
}

// Subject names the argument that says what a call touches. The host
// derives containment, sensitivity, resource keys and approval from it.
type Subject struct {
	kind          string
	arg           string
	write         bool
	cwdArg        string
	envArg        string
	backgroundArg string
	timeoutArg    string
}

// ReadsPath declares that argument arg names a path the tool reads.
func ReadsPath(arg string) Subject { return Subject{kind: "path", arg: arg} }

// WritesPath declares that argument arg names a path the tool writes.
func WritesPath(arg string) Subject { return Subject{kind: "path", arg: arg, write: true} }

// FetchesURL declares that argument arg is a URL the tool fetches.
func FetchesURL(arg string) Subject { return Subject{kind: "url", arg: arg} }

// RunsCommand declares the arguments of a command execution: the command
// text and, where present, cwd, environment overlay, background flag and
// timeout ("" when the tool has no such argument).
func RunsCommand(command, cwd, env, background, timeout string) Subject {
	return Subject{kind: "command", arg: command, cwdArg: cwd, envArg: env, backgroundArg: background, timeoutArg: timeout}
}

// Spec describes one tool.
type Spec struct {
	Name        string
	Description string
	// Schema is the JSON Schema of the arguments. Define derives it from
	// the parameter struct; set it by hand only for tools whose input is
	// not a struct.
	Schema   json.RawMessage
	Metadata Metadata
	Effect   Effect
	Subjects []Subject
	// HostServices are the host services the tool calls (clarify, todo,
	// session_history, delegate, schedule, core_control). The host answers
	// them only for its built-in toolsets; a third-party toolset's
	// declaration is never granted.
	HostServices []string
	// ApprovalPreview is how the operator is shown a call before approving
	// it: "file_write" or "file_patch" (a unified diff), "" the arguments.
	// The host honours it for its built-in toolsets only.
	ApprovalPreview string
}

// Tool is one tool of a toolset.
type Tool interface {
	Spec() Spec
	// Execute runs one validated call. A returned error becomes an error
	// result the model sees; return a Result with IsError for errors that
	// carry structured detail.
	Execute(ctx *Context, args json.RawMessage) (*Result, error)
}

// Prechecker is implemented by tools that can tell, without effects,
// whether a call can succeed. The host asks before it asks the operator
// for approval, so nobody approves a call that cannot work. Return nil to
// let the call go on to approval, or an error result to refuse it.
type Prechecker interface {
	Precheck(ctx *Context, args json.RawMessage) (*Result, error)
}

var toolNamePattern = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,63}$`)

func (s Spec) validate() error {
	if !toolNamePattern.MatchString(s.Name) {
		return fmt.Errorf("tool name %q must match %s (valid for every model provider)", s.Name, toolNamePattern)
	}
	if s.Description == "" {
		return fmt.Errorf("tool %s: description is empty; the model needs one", s.Name)
	}
	var schema map[string]any
	if err := json.Unmarshal(s.Schema, &schema); err != nil {
		return fmt.Errorf("tool %s: schema is not a JSON object: %w", s.Name, err)
	}
	if t, _ := schema["type"].(string); t != "object" {
		return fmt.Errorf("tool %s: schema type must be \"object\", got %v", s.Name, schema["type"])
	}
	switch s.Effect {
	case EffectRead, EffectWrite, EffectExec, EffectNetwork, EffectControl:
	default:
		return fmt.Errorf("tool %s: effect %q is not one of read, write, exec, network, control", s.Name, s.Effect)
	}
	for _, sub := range s.Subjects {
		if sub.arg == "" {
			return fmt.Errorf("tool %s: a subject names no argument", s.Name)
		}
	}
	return nil
}
