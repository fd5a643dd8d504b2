package dispatch

import (
	"encoding/json"
	"slices"
	"strings"
	"sync"

	"demiurge.dev/catalog"
)

// heardChildren are the children whose answers authored code received
// during one call (ctx.agents.run, or a handle's status or wait once the
// child ended). The code may put an answer into its result as it likes,
// so that result comes from outside as delegate_task's does: a child's
// model wrote the answer after reading what this session never saw.
type heardChildren struct {
	mu      sync.Mutex
	origins []string
}

// note records the child of an AgentRunResult the code was given, when
// it carries an answer.
func (h *heardChildren) note(resultJSON string) {
	var r struct {
		Answer  string `json:"answer"`
		AgentID string `json:"agent_id"`
	}
	if json.Unmarshal([]byte(resultJSON), &r) != nil || r.Answer == "" {
		return
	}
	origin := ChildAgentOrigin(r.AgentID)
	h.mu.Lock()
	defer h.mu.Unlock()
	if !slices.Contains(h.origins, origin) {
		h.origins = append(h.origins, origin)
	}
}

// origin names every child heard, "" when none was.
func (h *heardChildren) origin() string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return strings.Join(h.origins, " ")
}

// mayHearChildren reports whether an entry's calls can receive a child's
// answer through ctx.agents: an authored tool that declares the spawn
// capability (granted or not, its results may then be wrapped, so the
// model's instructions explain the envelope).
func mayHearChildren(e *catalog.Entry) bool {
	return e.Spec.Provenance.Kind == catalog.SourceAuthored && slices.Contains(e.Effective.Capabilities, SpawnCapability)
}

// childResultFor is an AgentRunResult as authored code gets it: noted in
// heard for a tool, or, for a pipeline slot (heard nil), with its answer
// in the envelope of its child, as a slot's ctx.tools.call gets the
// model's view of a result.
func (t *Turn) childResultFor(resultJSON string, heard *heardChildren) string {
	if heard != nil {
		heard.note(resultJSON)
		return resultJSON
	}
	var r map[string]any
	if json.Unmarshal([]byte(resultJSON), &r) != nil {
		return resultJSON
	}
	answer, _ := r["answer"].(string)
	if answer == "" {
		return resultJSON
	}
	id, _ := r["agent_id"].(string)
	r["answer"] = WrapChildAnswer(t.EnvelopeBoundary(), id, answer)
	b, err := json.Marshal(r)
	if err != nil {
		return resultJSON
	}
	return string(b)
}
