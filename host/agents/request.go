package agents

import (
	"bytes"
	"demiurge.dev/host/agents/agentmeta"
	"demiurge.dev/host/approval"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Request is one child as its caller asked for it: the seed's child
// controls. Everything in it can only narrow what the parent has.
type Request struct {
	Goal string
	// Card is the goal the operator's prompts name for this child ("":
	// Goal): the evolver's Goal frames the run's goal with standing
	// instructions, and its prompts show the run's goal itself.
	Card   string
	CoreID string // "": the parent's core
	// ContextMode is "isolated", the only mode: the child sees its goal
	// and nothing of the parent's conversation.
	ContextMode string
	// NotifyPolicy is return_to_parent, silent or wait (NotifyWait: the
	// caller waits for the child's result, a foreground child).
	NotifyPolicy string
	// MaxDepth, when set, lowers how many further levels of children the
	// child may start (0: none).
	MaxDepth *int
	// Tools nil is "all"; empty is "none"; else a list that only narrows.
	Tools []string
	// InputSlots and OutputSlots: nil is base only, All the whole
	// pipeline, else a filter of it.
	InputSlots, OutputSlots SlotSelection
	UseBootstrap            bool
	// Asker is who answers the child's approval prompts: the root
	// session's front end, as the parent's turn has it (nil: no one, so
	// they are denied). Not a control the caller sets.
	Asker approval.Provider
	// FrontEnd is the parent turn's front end (any: as dispatch hands it);
	// if it is a turn.ChildShower the child's events are shown to it.
	FrontEnd any
}

// The notify policies.
const (
	NotifyReturn = "return_to_parent"
	NotifySilent = "silent"
	NotifyWait   = "wait"
)

// SlotSelection is input_slots or output_slots (agentmeta's).
type SlotSelection = agentmeta.SlotSelection

// maxGoal bounds a goal, in bytes.
const maxGoal = 20000

// ErrRefused wraps every refusal of a request or of the gate.
var ErrRefused = errors.New("delegate_task refused")

func refuse(format string, args ...any) error {
	return fmt.Errorf("%w: %s", ErrRefused, fmt.Sprintf(format, args...))
}

// delegateArgs is delegate_task's argument object, decoded strictly.
type delegateArgs struct {
	Goal         *string         `json:"goal"`
	CoreID       *string         `json:"core_id"`
	ContextMode  *string         `json:"context_mode"`
	NotifyPolicy *string         `json:"notify_policy"`
	MaxDepth     *int            `json:"max_depth"`
	Tools        json.RawMessage `json:"tools"`
	InputSlots   json.RawMessage `json:"input_slots"`
	OutputSlots  json.RawMessage `json:"output_slots"`
	UseBootstrap *bool           `json:"use_bootstrap"`
}

// ParseDelegate reads delegate_task's arguments: unknown fields, wrong
// types and values outside the seed's are refusals naming the field.
func ParseDelegate(raw []byte) (Request, error) {
	var a delegateArgs
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&a); err != nil {
		return Request{}, refuse("the arguments could not be read: %v", err)
	}
	var r Request
	if a.Goal == nil || strings.TrimSpace(*a.Goal) == "" {
		return Request{}, refuse("goal is required: say what the child should do")
	}
	if len(*a.Goal) > maxGoal || !utf8.ValidString(*a.Goal) {
		return Request{}, refuse("goal must be valid text of at most %d bytes", maxGoal)
	}
	r.Goal = *a.Goal
	if a.CoreID != nil {
		r.CoreID = *a.CoreID
	}
	r.ContextMode = "isolated"
	if a.ContextMode != nil && *a.ContextMode != "isolated" {
		return Request{}, refuse("context_mode %q: the only mode is isolated (the child sees its goal only)", short(*a.ContextMode))
	}
	r.NotifyPolicy = NotifyReturn
	if a.NotifyPolicy != nil {
		switch *a.NotifyPolicy {
		case NotifyReturn, NotifySilent, NotifyWait:
			r.NotifyPolicy = *a.NotifyPolicy
		default:
			return Request{}, refuse("notify_policy %q: use return_to_parent, silent or wait", short(*a.NotifyPolicy))
		}
	}
	if a.MaxDepth != nil {
		if *a.MaxDepth < 0 {
			return Request{}, refuse("max_depth must be 0 or more")
		}
		r.MaxDepth = a.MaxDepth
	}
	var err error
	if r.Tools, err = parseTools(a.Tools); err != nil {
		return Request{}, err
	}
	if r.InputSlots, err = parseSlots("input_slots", a.InputSlots); err != nil {
		return Request{}, err
	}
	if r.OutputSlots, err = parseSlots("output_slots", a.OutputSlots); err != nil {
		return Request{}, err
	}
	if a.UseBootstrap != nil {
		r.UseBootstrap = *a.UseBootstrap
	}
	return r, nil
}

// parseTools: absent, null or "all" is nil (the child core's tools);
// "none" or [] is empty; a list of names is kept as given.
func parseTools(raw json.RawMessage) ([]string, error) {
	if isNull(raw) {
		return nil, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		switch s {
		case "all":
			return nil, nil
		case "none":
			return []string{}, nil
		}
		return nil, refuse("tools %q: give \"all\", \"none\" or a list of tool names", short(s))
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return nil, refuse("tools must be \"all\", \"none\" or a list of tool names")
	}
	for _, n := range list {
		if n == "all" || n == "none" {
			return nil, refuse("tools: %q is a word of its own, not a tool name in a list", n)
		}
	}
	if list == nil {
		list = []string{}
	}
	return list, nil
}

// parseSlots: absent, null or [] is base only; "all" the whole
// pipeline; a list filters it.
func parseSlots(field string, raw json.RawMessage) (SlotSelection, error) {
	if isNull(raw) {
		return SlotSelection{}, nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if s == "all" {
			return SlotSelection{All: true}, nil
		}
		return SlotSelection{}, refuse("%s %q: give \"all\" or a list of slot ids", field, short(s))
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err != nil {
		return SlotSelection{}, refuse("%s must be \"all\" or a list of slot ids", field)
	}
	return SlotSelection{IDs: list}, nil
}

func isNull(raw json.RawMessage) bool {
	t := bytes.TrimSpace(raw)
	return len(t) == 0 || bytes.Equal(t, []byte("null"))
}

func short(s string) string {
	if r := []rune(s); len(r) > 40 {
		return string(r[:40]) + "…"
	}
	return s
}
