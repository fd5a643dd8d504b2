package shellguard

import (
	"fmt"
	"slices"
)

// Decision is what the guard says about a command.
type Decision int

const (
	// Allow: the command is literal and read-only; it may run unasked.
	Allow Decision = iota
	// Prompt: someone must approve the command first.
	Prompt
	// Block: the command is a known destructive payload; no approval can
	// let it run.
	Block
)

func (d Decision) String() string {
	switch d {
	case Allow:
		return "allow"
	case Prompt:
		return "prompt"
	case Block:
		return "block"
	}
	return fmt.Sprintf("decision(%d)", int(d))
}

// MarshalText writes the decision's name, for JSON.
func (d Decision) MarshalText() ([]byte, error) { return []byte(d.String()), nil }

// UnmarshalText reads a decision's name back (a front end reading the
// host's approval question); an unknown name is an error.
func (d *Decision) UnmarshalText(b []byte) error {
	for _, v := range []Decision{Allow, Prompt, Block} {
		if v.String() == string(b) {
			*d = v
			return nil
		}
	}
	return fmt.Errorf("unknown shell guard decision %q", b)
}

// Risk is how much harm the command could do.
type Risk int

const (
	Low Risk = iota
	Medium
	High
)

func (r Risk) String() string {
	switch r {
	case Low:
		return "low"
	case Medium:
		return "medium"
	case High:
		return "high"
	}
	return fmt.Sprintf("risk(%d)", int(r))
}

// MarshalText writes the risk's name, for JSON.
func (r Risk) MarshalText() ([]byte, error) { return []byte(r.String()), nil }

// UnmarshalText reads a risk's name back; an unknown name is an error.
func (r *Risk) UnmarshalText(b []byte) error {
	for _, v := range []Risk{Low, Medium, High} {
		if v.String() == string(b) {
			*r = v
			return nil
		}
	}
	return fmt.Errorf("unknown shell guard risk %q", b)
}

// Verdict is the guard's reading of one command.
type Verdict struct {
	Decision Decision `json:"decision"`
	Risk     Risk     `json:"risk"`
	// Reasons say why the decision is not allow/low, most important
	// first; empty for an allowed command.
	Reasons []string `json:"reasons"`
	// Parts are the simple commands of the raw reading, each judged on
	// its own, in source order.
	Parts []Part `json:"parts,omitempty"`
}

// Part is one command of a compound command (a pipeline stage, one side
// of && or ;).
type Part struct {
	// Text is the part's source text.
	Text string `json:"text"`
	// Program is the executable the part runs after unwrapping wrappers
	// (env, timeout, ...), when the guard could tell.
	Program  string   `json:"program,omitempty"`
	Decision Decision `json:"decision"`
	Risk     Risk     `json:"risk"`
	Reasons  []string `json:"reasons,omitempty"`
}

// finding is a verdict in the making: the strictest of everything raised.
type finding struct {
	decision Decision
	risk     Risk
	reasons  []string
	// blocks are the reasons that blocked, kept apart so that a scan for
	// destructive payloads can take only those.
	blocks []string
}

// raise makes f at least as strict as d and r, and records why.
func (f *finding) raise(d Decision, r Risk, reason string) {
	f.decision = max(f.decision, d)
	f.risk = max(f.risk, r)
	if reason != "" && !slices.Contains(f.reasons, reason) {
		f.reasons = append(f.reasons, reason)
	}
}

// merge raises f by everything g found.
func (f *finding) merge(g finding) {
	f.decision = max(f.decision, g.decision)
	f.risk = max(f.risk, g.risk)
	for _, r := range g.reasons {
		if !slices.Contains(f.reasons, r) {
			f.reasons = append(f.reasons, r)
		}
	}
	for _, r := range g.blocks {
		if !slices.Contains(f.blocks, r) {
			f.blocks = append(f.blocks, r)
		}
	}
}

func (f *finding) prompt(r Risk, reason string) { f.raise(Prompt, r, reason) }

func (f *finding) block(reason string) {
	f.decision, f.risk = Block, High
	if !slices.Contains(f.blocks, reason) {
		f.blocks = append(f.blocks, reason)
	}
}
