package agents

import (
	"demiurge.dev/host/providers"
	"demiurge.dev/host/turn"
)

// The closed set of a child's end states.
const (
	StatusCompleted      = "completed"
	StatusFailed         = "failed"
	StatusCancelled      = "cancelled"
	StatusTimeout        = "timeout"
	StatusBudgetExceeded = "budget_exceeded"
)

// AgentRunResult is how a child ended, as its caller sees it.
type AgentRunResult struct {
	Status string          `json:"status"`
	Answer string          `json:"answer"`
	Usage  providers.Usage `json:"usage"`
	Steps  int             `json:"steps"`
	TaskID string          `json:"task_id"`
	// AgentID is the child's session id.
	AgentID string `json:"agent_id"`
}

// statusOf maps the child's turn end onto the closed set.
func statusOf(res turn.Result, timedOut, budget bool) string {
	switch {
	case budget || res.Status == turn.StatusStepCap:
		return StatusBudgetExceeded
	case timedOut:
		return StatusTimeout
	case res.Status == turn.StatusDone:
		return StatusCompleted
	case res.Status == turn.StatusCancelled:
		return StatusCancelled
	}
	return StatusFailed
}

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
	Usage  providers.Usage `json:"usage"`
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
