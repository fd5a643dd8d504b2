// Package worker runs authored-tool entrypoints in worker processes that
// speak newline-delimited JSON on stdin and stdout, keeps them warm between
// calls, and kills a worker's process group when a call outlives its time.
package worker

import "encoding/json"

// Protocol is the worker protocol version a worker announces when ready.
const Protocol = 1

// message is every line of the protocol, in both directions; Type says
// which fields matter.
type message struct {
	Type string `json:"type"`
	ID   string `json:"id,omitempty"`
	// ready
	Protocol int `json:"protocol,omitempty"`
	// call
	Args    json.RawMessage `json:"args,omitempty"`
	Context *CallContext    `json:"context,omitempty"`
	// capability (worker → host) and capability_result
	Capability string `json:"capability,omitempty"`
	Require    bool   `json:"require,omitempty"`
	Granted    bool   `json:"granted,omitempty"`
	Reason     string `json:"reason,omitempty"`
	// deliver
	Text string `json:"text,omitempty"`
	// tool_call (worker → host): a pipeline slot's ctx.tools.call
	Tool string `json:"tool,omitempty"`
	// agents (worker → host): ctx.agents; op is run, spawn, status, wait
	// or cancel; args holds run's and spawn's child controls.
	Op        string `json:"op,omitempty"`
	TaskID    string `json:"task_id,omitempty"`
	TimeoutMS int64  `json:"timeout_ms,omitempty"`
	// result, error, fatal, deliver_result
	Value json.RawMessage `json:"value,omitempty"`
	Code  string          `json:"code,omitempty"`
	Error string          `json:"error,omitempty"`
}

// replyMessage is what the host sends back to a capability or deliver
// request; granted is always present so that false is explicit.
type replyMessage struct {
	Type    string `json:"type"`
	Granted bool   `json:"granted"`
	Reason  string `json:"reason,omitempty"`
	Error   string `json:"error,omitempty"`
	// tool_call_result: the call's model view, whether it failed, and
	// its dispatch status.
	Content string `json:"content,omitempty"`
	IsError bool   `json:"is_error,omitempty"`
	Status  string `json:"status,omitempty"`
	// agents_result: the host's JSON answer, or Error with Code
	// (AgentErrValue, AgentErrPermission, AgentErrNotFound or
	// AgentErrFailed), which the SDK raises as ValueError,
	// PermissionError, LookupError or RuntimeError.
	Value json.RawMessage `json:"value,omitempty"`
	Code  string          `json:"code,omitempty"`
}

// The codes of a failed agents request.
const (
	AgentErrValue      = "value_error"
	AgentErrPermission = "permission"
	AgentErrNotFound   = "not_found"
	AgentErrFailed     = "failed"
)

// AgentRequest is one ctx.agents request of a running call.
type AgentRequest struct {
	Op        string
	Args      json.RawMessage
	TaskID    string
	TimeoutMS int64
}

// AgentError is a refused or failed ctx.agents request.
type AgentError struct {
	Code, Message string
}

func (e *AgentError) Error() string { return e.Message }

// CallContext is what the tool's ctx is made of.
type CallContext struct {
	TurnID    string `json:"turn_id"`
	SessionID string `json:"session_id"`
	SlotID    string `json:"slot_id"`
	SlotPath  string `json:"slot_path"`
	Workspace string `json:"workspace"`
}
