// Package agentmeta is an agent.spawn task's metadata as the task
// records it: what a front end reads for /subagents without linking the
// agent runtime (dispatch, the model SDKs).
package agentmeta

import "demiurge.dev/shared/turnevent"

// TaskTool is the Tool of an agent.spawn task.
const TaskTool = "agent.spawn"

// Meta is an agent.spawn task's operator-only metadata.
type Meta struct {
	AgentID  string `json:"agent_id"`
	Parent   string `json:"parent"`
	Root     string `json:"root"`
	Depth    int    `json:"depth"`
	MaxDepth int    `json:"max_depth"`
	Goal     string `json:"goal"`
	Core     string `json:"core,omitempty"`
	// Requested is what the caller asked for, as given.
	Requested Requested `json:"requested"`
	// Resolved is what the child ran with.
	Resolved Resolved `json:"resolved"`
	// Ended, once the child ended.
	Status string          `json:"status,omitempty"`
	Steps  int             `json:"steps,omitempty"`
	Usage  turnevent.Usage `json:"usage"`
}

// Requested are the child controls as asked.
type Requested struct {
	Tools        []string      `json:"tools"`
	InputSlots   SlotSelection `json:"input_slots"`
	OutputSlots  SlotSelection `json:"output_slots"`
	UseBootstrap bool          `json:"use_bootstrap"`
	ContextMode  string        `json:"context_mode"`
	NotifyPolicy string        `json:"notify_policy"`
	MaxDepth     *int          `json:"max_depth,omitempty"`
	CoreID       string        `json:"core_id,omitempty"`
}

// Resolved is the child's resolved tools and pipeline.
type Resolved struct {
	Tools        []string   `json:"tools"`
	Input        [][]string `json:"input_pipeline"`
	Output       [][]string `json:"output_pipeline"`
	UseBootstrap bool       `json:"use_bootstrap"`
	Steps        int        `json:"max_steps"`
	OutputTokens int64      `json:"max_output_tokens"`
	WallSeconds  int64      `json:"wall_seconds"`
}

// SlotSelection is input_slots or output_slots: All, or the listed ids
// (none: base only).
type SlotSelection struct {
	All bool
	IDs []string
}
