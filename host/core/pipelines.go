package core

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"path/filepath"
	"slices"

	"go.yaml.in/yaml/v3"
)

// PipelinesFile orders a core's slots around a model turn.
const PipelinesFile = "pipelines.yaml"

// The host's own slot ids.
const (
	// BaseInput is the user's message entering the history.
	BaseInput = "base_input"
	// BaseOutput is the model's answer reaching the front end.
	BaseOutput = "base_output"
	// ProjectInstructions is the built-in bootstrap slot that reads the
	// workspace's AGENTS.md files (host/pipeline).
	ProjectInstructions = "project_instructions"
)

func reservedSlot(id string) bool {
	return id == BaseInput || id == BaseOutput || id == ProjectInstructions
}

// The stages of a pipeline.
const (
	StageBootstrap = "bootstrap"
	StageInput     = "input"
	StageOutput    = "output"
)

var stageKeys = []string{StageBootstrap, StageInput, StageOutput}

// Group is one step of a stage: one slot id, or several that run in
// parallel and whose changes merge in the declared order.
type Group []string

// Pipelines are a core's three stages. Input always holds BaseInput and
// Output BaseOutput (first, when pipelines.yaml does not place them).
type Pipelines struct {
	Bootstrap, Input, Output []Group
	// File is the pipelines.yaml read; "" when the core has none.
	File string
}

// DefaultPipelines are a core's without pipelines.yaml: the host's own
// slots only.
func DefaultPipelines() Pipelines {
	return Pipelines{Input: []Group{{BaseInput}}, Output: []Group{{BaseOutput}}}
}

// Slots lists a stage's slot ids in order.
func (p Pipelines) Slots(stage []Group) []string {
	var out []string
	for _, g := range stage {
		out = append(out, g...)
	}
	return out
}

// loadPipelines reads dir/pipelines.yaml, checking every slot id against
// slots (the core's slots/<id>) and the host's own.
func loadPipelines(dir string, slots map[string]*Slot) (Pipelines, error) {
	file := filepath.Join(dir, PipelinesFile)
	if _, err := os.Lstat(file); errors.Is(err, fs.ErrNotExist) {
		return DefaultPipelines(), nil
	}
	data, err := readFile(file)
	if err != nil {
		return Pipelines{}, err
	}
	return parsePipelines(data, file, slots)
}

func parsePipelines(data []byte, file string, slots map[string]*Slot) (Pipelines, error) {
	d := &decoder{file: file, origin: PipelinesFile}
	root, lerr := d.singleMapping(data, documentWording{
		empty:  "pipelines.yaml is empty; give the stages, e.g. \"input: [base_input]\", or remove the file",
		second: "pipelines are one document, remove the \"---\" separator",
		keys:   stageKeys,
	})
	if lerr != nil {
		return Pipelines{}, lerr
	}
	p := Pipelines{File: file}
	entries, err := d.mapping(root, "")
	if err != nil {
		return Pipelines{}, err
	}
	for _, e := range entries {
		if !slices.Contains(stageKeys, e.name) {
			return Pipelines{}, d.errorf(e.key, e.field, "%s", unknownMsg("stage", e.name, "stages", stageKeys))
		}
		groups, err := d.stage(e, slots)
		if err != nil {
			return Pipelines{}, err
		}
		switch e.name {
		case StageBootstrap:
			p.Bootstrap = groups
		case StageInput:
			p.Input = groups
		case StageOutput:
			p.Output = groups
		}
	}
	p.Input = withBase(p.Input, BaseInput)
	p.Output = withBase(p.Output, BaseOutput)
	return p, nil
}

// withBase puts the host's own slot first when the stage does not place it.
func withBase(stage []Group, base string) []Group {
	for _, g := range stage {
		if slices.Contains(g, base) {
			return stage
		}
	}
	return append([]Group{{base}}, stage...)
}

// stage decodes one stage's list: ids and nested lists of ids (parallel
// groups, one level deep).
func (d *decoder) stage(e entry, slots map[string]*Slot) ([]Group, error) {
	if e.val.Kind == yaml.ScalarNode && e.val.ShortTag() == "!!null" {
		return nil, nil // "bootstrap:" with nothing: an empty stage
	}
	items, err := d.list(e.val, e.field)
	if err != nil {
		return nil, err
	}
	seen := map[string]int{}
	var out []Group
	for i, it := range items {
		f := itemField(e.field, i)
		if it.Kind == yaml.SequenceNode {
			sub, err := d.list(it, f)
			if err != nil {
				return nil, err
			}
			if len(sub) < 2 {
				return nil, d.errorf(it, f, "a parallel group names at least two slots; write a single slot without the brackets")
			}
			var g Group
			for j, s := range sub {
				id, err := d.slotRef(s, itemField(f, j), e.name, slots, seen)
				if err != nil {
					return nil, err
				}
				if id == BaseInput || id == BaseOutput {
					return nil, d.errorf(s, itemField(f, j), "%s is the host's own step and runs alone, not in a parallel group", id)
				}
				g = append(g, id)
			}
			out = append(out, g)
			continue
		}
		id, err := d.slotRef(it, f, e.name, slots, seen)
		if err != nil {
			return nil, err
		}
		out = append(out, Group{id})
	}
	return out, nil
}

// slotRef checks one slot id of a stage.
func (d *decoder) slotRef(n *yaml.Node, field, stage string, slots map[string]*Slot, seen map[string]int) (string, error) {
	if n.Kind == yaml.SequenceNode {
		return "", d.errorf(n, field, "parallel groups nest one level deep: [a, [b, c]], not deeper")
	}
	id, err := d.str(n, field)
	if err != nil {
		return "", err
	}
	if line, dup := seen[id]; dup {
		return "", d.errorf(n, field, "slot %q is already in this stage (line %d); a slot runs once per stage", clip(id), line)
	}
	seen[id] = n.Line
	switch {
	case id == BaseInput && stage != StageInput, id == BaseOutput && stage != StageOutput,
		id == ProjectInstructions && stage != StageBootstrap:
		return "", d.errorf(n, field, "%s belongs to the %s stage only", id, map[string]string{BaseInput: StageInput, BaseOutput: StageOutput, ProjectInstructions: StageBootstrap}[id])
	case reservedSlot(id):
		return id, nil
	case slots[id] != nil:
		return id, nil
	}
	known := slices.Sorted(maps.Keys(slots))
	known = append(known, map[string][]string{StageBootstrap: {ProjectInstructions}, StageInput: {BaseInput}, StageOutput: {BaseOutput}}[stage]...)
	return "", d.errorf(n, field, "%s", unknownMsg("slot", id, fmt.Sprintf("slots of this core for %s", stage), known))
}

func (p Pipelines) clone() Pipelines {
	cp := func(s []Group) []Group {
		out := make([]Group, len(s))
		for i, g := range s {
			out[i] = slices.Clone(g)
		}
		return out
	}
	p.Bootstrap, p.Input, p.Output = cp(p.Bootstrap), cp(p.Input), cp(p.Output)
	return p
}
