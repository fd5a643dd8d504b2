package pipeline

import (
	"errors"
	"fmt"
	"strings"

	"demiurge.dev/host/core"
)

// ErrAuthoredSlots says a core's pipelines name authored slots, which
// this host validates but does not run yet.
var ErrAuthoredSlots = errors.New("authored bootstrap slots are validated but not run by this host yet (authored input and output slots run)")

// CheckRunnable refuses a core whose pipelines name a slot this host
// cannot run, naming the file and the slots, so that a pipeline never
// runs with a step silently missing.
func CheckRunnable(c *core.Core) error {
	var authored []string
	for _, stage := range [][]core.Group{c.Pipelines.Bootstrap} {
		for _, id := range c.Pipelines.Slots(stage) {
			if id != core.BaseInput && id != core.BaseOutput && id != core.ProjectInstructions {
				authored = append(authored, id)
			}
		}
	}
	if len(authored) == 0 {
		return nil
	}
	return fmt.Errorf("%s: %w: %s; take them out of pipelines.yaml for now", c.Pipelines.File, ErrAuthoredSlots, strings.Join(authored, ", "))
}

// Part is what one bootstrap slot contributed.
type Part struct {
	Slot string `json:"slot"`
	Text string `json:"text"`
}

// Snapshot is a session's bootstrap snapshot: made once, when the
// session's first turn starts, stored with the session and put into the
// system text of every provider request of the session.
type Snapshot struct {
	Parts []Part `json:"parts"`
	// Notes are what the slots left out and why (for the operator).
	Notes []string `json:"notes,omitempty"`
	// CoreRevision is the core revision the snapshot was made under.
	CoreRevision string `json:"core_revision"`
}

// Text is the snapshot as system text.
func (s Snapshot) Text() string {
	var parts []string
	for _, p := range s.Parts {
		if t := strings.TrimSpace(p.Text); t != "" {
			parts = append(parts, t)
		}
	}
	return strings.Join(parts, "\n\n")
}

// Bootstrap runs c's bootstrap stage for a session whose workspace is ws
// and working directory cwd.
func Bootstrap(c *core.Core, ws Workspace, cwd string) (Snapshot, error) {
	if err := CheckRunnable(c); err != nil {
		return Snapshot{}, err
	}
	snap := Snapshot{Parts: []Part{}, CoreRevision: c.Revision}
	for _, id := range c.Pipelines.Slots(c.Pipelines.Bootstrap) {
		if id != core.ProjectInstructions {
			continue // CheckRunnable refused every other id
		}
		text, notes, err := ProjectInstructions(ws, cwd)
		if err != nil {
			return Snapshot{}, fmt.Errorf("bootstrap slot %s: %w", id, err)
		}
		snap.Parts = append(snap.Parts, Part{Slot: id, Text: text})
		snap.Notes = append(snap.Notes, notes...)
	}
	return snap, nil
}
