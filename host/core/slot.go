package core

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"

	"go.yaml.in/yaml/v3"
)

// SlotFile is a pipeline slot's declaration: slots/<id>/slot.yaml.
const SlotFile = "slot.yaml"

// SlotsDir is the directory of a core's pipeline slots.
const SlotsDir = "slots"

// The values of the slot-only fields (docs/pipelines.md defines each).
const (
	// FailFail: a slot that raises, times out or returns something
	// malformed ends the turn with the reason (the default: fail closed).
	FailFail = "fail"
	// FailSkip: such a slot's change is dropped, the turn goes on and the
	// front end is told.
	FailSkip = "skip"

	// HistoryTurn: context a slot adds reaches this turn's provider
	// requests only (the default).
	HistoryTurn = "turn"
	// HistoryKeep: context a slot adds is stored in the session's
	// history with the message it came with, and replayed on resume.
	HistoryKeep = "keep"

	// PlaceSystem: added context goes to the system text.
	PlaceSystem = "system"
	// PlaceMessage: added context goes into a block before the user's
	// message (the default).
	PlaceMessage = "message"
)

// Slot bounds.
const (
	DefaultSlotTimeout = 10
	MaxSlotTimeout     = 300
)

// Slot is one slots/<id>/slot.yaml: the authored code that runs in a
// pipeline stage. Tool fields that make no sense for code the model never
// calls (input_schema, risk, approval_policy, display_policy,
// model_output_policy) are refused.
type Slot struct {
	ID   string
	Dir  string // slots/<id>, absolute
	File string // its slot.yaml
	// Entrypoint is module:function (default module:run) as in tool.yaml.
	Entrypoint   string
	Description  string
	Capability   string
	Capabilities []string
	// CapabilityAt and CapabilitiesAt are where they are written (line,
	// column), for the host's capability check (SlotCapabilityError).
	CapabilityAt   [2]int
	CapabilitiesAt [][2]int
	// FailurePolicy is FailFail or FailSkip; HistoryPolicy HistoryTurn or
	// HistoryKeep; DefaultPlacement PlaceSystem or PlaceMessage.
	FailurePolicy, HistoryPolicy, DefaultPlacement string
	// TimeoutSeconds bounds one run, 1 to MaxSlotTimeout.
	TimeoutSeconds int
}

var slotFileKeys = []string{"entrypoint", "description", "capability", "capabilities", "failure_policy", "history_policy", "default_placement", "timeout_seconds"}

// toolOnlyKeys are tool.yaml's fields that slot.yaml refuses.
var toolOnlyKeys = []string{"input_schema", "risk", "approval_policy", "display_policy", "model_output_policy"}

var (
	slotIDPattern  = regexp.MustCompile(`^[a-z][a-z0-9_]{0,63}$`)
	entrypointForm = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*:[A-Za-z_][A-Za-z0-9_]*$`)
)

// loadSlots reads every slots/<id>/slot.yaml of the core directory dir.
func loadSlots(dir string) (map[string]*Slot, error) {
	root := filepath.Join(dir, SlotsDir)
	ents, err := os.ReadDir(root)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, &LoadError{File: root, Msg: fmt.Sprintf("cannot read the slots directory: %v", err), Err: err}
	}
	out := map[string]*Slot{}
	for _, e := range ents {
		p := filepath.Join(root, e.Name())
		if !e.IsDir() {
			return nil, &LoadError{File: p, Msg: "only slot directories (slots/<id>/slot.yaml) belong in slots/"}
		}
		if !slotIDPattern.MatchString(e.Name()) || reservedSlot(e.Name()) {
			return nil, &LoadError{File: p, Msg: fmt.Sprintf("slot id %q: use 1-64 of a-z 0-9 _, starting with a letter, and none of the host's own (%s, %s, %s)", clip(e.Name()), BaseInput, BaseOutput, ProjectInstructions)}
		}
		s, err := loadSlot(p, e.Name())
		if err != nil {
			return nil, err
		}
		out[s.ID] = s
	}
	return out, nil
}

func loadSlot(dir, id string) (*Slot, error) {
	file := filepath.Join(dir, SlotFile)
	data, err := readFile(file)
	if err != nil {
		return nil, err
	}
	d := &decoder{file: file, origin: SlotFile, dir: dir}
	root, lerr := d.singleMapping(data, documentWording{
		empty:  "slot.yaml is empty; declare the slot, e.g. \"entrypoint: module:run\"",
		second: "a slot is one document, remove the \"---\" separator",
		keys:   slotFileKeys,
	})
	if lerr != nil {
		return nil, lerr
	}
	s := &Slot{ID: id, Dir: dir, File: file, Entrypoint: "module:run", FailurePolicy: FailFail,
		HistoryPolicy: HistoryTurn, DefaultPlacement: PlaceMessage, TimeoutSeconds: DefaultSlotTimeout}
	entries, err := d.mapping(root, "")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if err := d.slotKey(s, e); err != nil {
			return nil, err
		}
	}
	module, _, _ := cutColon(s.Entrypoint)
	if fi, err := os.Stat(filepath.Join(dir, module+".py")); err != nil || !fi.Mode().IsRegular() {
		return nil, &LoadError{File: file, Field: "entrypoint", Msg: fmt.Sprintf("%s.py does not exist beside slot.yaml", module)}
	}
	return s, nil
}

func (d *decoder) slotKey(s *Slot, e entry) error {
	var err error
	switch e.name {
	case "entrypoint":
		if s.Entrypoint, err = d.str(e.val, e.field); err == nil && !entrypointForm.MatchString(s.Entrypoint) {
			err = d.errorf(e.val, e.field, "want module:function, such as module:run, got %q", clip(s.Entrypoint))
		}
	case "description":
		s.Description, err = d.str(e.val, e.field)
	case "capability":
		s.Capability, err = d.str(e.val, e.field)
		s.CapabilityAt = [2]int{e.val.Line, e.val.Column}
	case "capabilities":
		var items []*yaml.Node
		s.Capabilities, items, err = d.strList(e.val, e.field, "capability")
		for _, it := range items {
			s.CapabilitiesAt = append(s.CapabilitiesAt, [2]int{it.Line, it.Column})
		}
	case "failure_policy":
		s.FailurePolicy, err = d.oneOf(e.val, e.field, FailFail, FailSkip)
	case "history_policy":
		s.HistoryPolicy, err = d.oneOf(e.val, e.field, HistoryTurn, HistoryKeep)
	case "default_placement":
		s.DefaultPlacement, err = d.oneOf(e.val, e.field, PlaceSystem, PlaceMessage)
	case "timeout_seconds":
		var n int
		if e.val.Kind != yaml.ScalarNode || e.val.ShortTag() != "!!int" || e.val.Decode(&n) != nil {
			return d.wrongType(e.val, e.field, "a whole number of seconds")
		}
		if n < 1 || n > MaxSlotTimeout {
			return d.errorf(e.val, e.field, "%d is out of range; give 1 to %d seconds", n, MaxSlotTimeout)
		}
		s.TimeoutSeconds = n
	default:
		if slices.Contains(toolOnlyKeys, e.name) {
			return d.errorf(e.key, e.field, "is a tool.yaml field; a slot is not called by the model, so it has no %s (slot fields: %s)", e.name, joinKeys(slotFileKeys))
		}
		return d.errorf(e.key, e.field, "%s", unknownMsg("key", e.name, "valid keys", slotFileKeys))
	}
	return err
}

// oneOf returns a string that must be one of valid.
func (d *decoder) oneOf(n *yaml.Node, field string, valid ...string) (string, error) {
	s, err := d.str(n, field)
	if err != nil {
		return "", err
	}
	if !slices.Contains(valid, s) {
		return "", d.errorf(n, field, "%s", unknownMsg("value", s, "valid values", valid))
	}
	return s, nil
}

func cutColon(s string) (string, string, bool) {
	for i := 0; i < len(s); i++ {
		if s[i] == ':' {
			return s[:i], s[i+1:], true
		}
	}
	return s, "", false
}

func joinKeys(k []string) string {
	out := ""
	for i, s := range k {
		if i > 0 {
			out += ", "
		}
		out += s
	}
	return out
}

// CapabilityError is a LoadError for the slot's capability (i < 0) or
// capabilities[i] that the host's capability check refused, at its line.
func (s *Slot) CapabilityError(i int, err error) *LoadError {
	e := &LoadError{File: s.File, Field: "capability", Msg: err.Error(), Err: err}
	at := s.CapabilityAt
	if i >= 0 {
		e.Field = itemField("capabilities", i)
		if i < len(s.CapabilitiesAt) {
			at = s.CapabilitiesAt[i]
		}
	}
	e.Line, e.Column = at[0], at[1]
	return e
}
