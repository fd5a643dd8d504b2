package agents

import (
	"demiurge.dev/host/agents/agentmeta"
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

// Meta, Requested and Resolved are an agent.spawn task's metadata
// (agentmeta: a front end reads it without the agent runtime).
type (
	Meta      = agentmeta.Meta
	Requested = agentmeta.Requested
	Resolved  = agentmeta.Resolved
)
