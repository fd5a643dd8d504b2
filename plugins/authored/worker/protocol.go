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
}

// CallContext is what the tool's ctx is made of.
type CallContext struct {
	TurnID    string `json:"turn_id"`
	SessionID string `json:"session_id"`
	SlotID    string `json:"slot_id"`
	SlotPath  string `json:"slot_path"`
	Workspace string `json:"workspace"`
}
