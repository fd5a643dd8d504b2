package core

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"go.yaml.in/yaml/v3"

	"demiurge.dev/catalog"
)

// PolicyExamplesFile lists calls with the verdict the core's policy must
// give each: checks the host's gates run, never rules. Like the inline
// match/not_match examples of an exec policy, they fail the gate when the
// policy drifts from what its author meant.
const PolicyExamplesFile = "policy_examples.yaml"

// MaxPolicyExamples bounds the examples of one core: each one resolves a
// call through the host's policy at every gate.
const MaxPolicyExamples = 256

// The verdicts an example may expect: the call runs unasked, the operator
// is asked, or it is refused without asking anyone.
const (
	VerdictAllow  = "allow"
	VerdictPrompt = "prompt"
	VerdictDeny   = "deny"
)

var (
	verdicts           = []string{VerdictAllow, VerdictPrompt, VerdictDeny}
	policyExamplesKeys = []string{"examples"}
	policyExampleKeys  = []string{"name", "tool", "args", "verdict"}
)

// PolicyExample is one call and the verdict the core's own policy must give
// it (capabilities, approval rules, tool metadata, the registry's policy
// and the shell guard; no operator rule, no session allow).
type PolicyExample struct {
	Name, Tool string
	// Args are the call's arguments as JSON ("{}" when none are given).
	Args    json.RawMessage
	Verdict string
	// File, Line, Column and Field say where the example is written, so a
	// failing example names its place.
	File         string
	Line, Column int
	Field        string
}

// Invalid is the gate's error for an example the call path cannot
// resolve (an unknown tool, arguments its schema refuses).
func (e PolicyExample) Invalid(why string) error {
	return &LoadError{File: e.File, Line: e.Line, Column: e.Column, Field: e.Field, Msg: fmt.Sprintf("policy example %q: %s", clip(e.Name), why)}
}

// loadPolicyExamples reads dir/policy_examples.yaml; none when the core has
// no such file.
func loadPolicyExamples(dir string) ([]PolicyExample, error) {
	file := filepath.Join(dir, PolicyExamplesFile)
	if _, err := os.Lstat(file); errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	data, err := readFile(file)
	if err != nil {
		return nil, err
	}
	return parsePolicyExamples(data, file)
}

func parsePolicyExamples(data []byte, file string) ([]PolicyExample, error) {
	d := &decoder{file: file, origin: PolicyExamplesFile}
	root, lerr := d.singleMapping(data, documentWording{
		empty:  "policy_examples.yaml is empty; list examples, e.g. \"examples: [{name: reads run unasked, tool: read_file, args: {path: README.md}, verdict: allow}]\", or remove the file",
		second: "policy examples are one document, remove the \"---\" separator",
		keys:   policyExamplesKeys,
	})
	if lerr != nil {
		return nil, lerr
	}
	entries, err := d.mapping(root, "")
	if err != nil {
		return nil, err
	}
	var out []PolicyExample
	for _, e := range entries {
		if e.name != "examples" {
			return nil, d.errorf(e.key, e.field, "%s", unknownMsg("key", e.name, "valid keys", policyExamplesKeys))
		}
		items, err := d.list(e.val, e.field)
		if err != nil {
			return nil, err
		}
		if len(items) == 0 {
			return nil, d.errorf(e.val, e.field, "is empty; give at least one example or remove the file")
		}
		if len(items) > MaxPolicyExamples {
			return nil, d.errorf(items[MaxPolicyExamples], e.field, "holds %d examples, over the limit of %d", len(items), MaxPolicyExamples)
		}
		names := map[string]int{}
		for i, it := range items {
			ex, err := d.policyExample(it, itemField(e.field, i))
			if err != nil {
				return nil, err
			}
			if line, dup := names[ex.Name]; dup {
				return nil, d.errorf(it, ex.Field+".name", "duplicate example name %q (first at line %d); name each example once", clip(ex.Name), line)
			}
			names[ex.Name] = ex.Line
			out = append(out, ex)
		}
	}
	return out, nil
}

// policyExample decodes one item of examples.
func (d *decoder) policyExample(n *yaml.Node, field string) (PolicyExample, error) {
	ex := PolicyExample{File: d.file, Line: n.Line, Column: n.Column, Field: field, Args: json.RawMessage("{}")}
	entries, err := d.mapping(n, field)
	if err != nil {
		return ex, err
	}
	for _, e := range entries {
		switch e.name {
		case "name":
			ex.Name, err = d.str(e.val, e.field)
		case "tool":
			if ex.Tool, err = d.str(e.val, e.field); err == nil {
				if verr := catalog.ValidToolName(ex.Tool); verr != nil {
					err = d.errorf(e.val, e.field, "%v", verr)
				}
			}
		case "args":
			ex.Args, err = d.jsonArgs(e.val, e.field)
		case "verdict":
			ex.Verdict, err = d.oneOf(e.val, e.field, verdicts...)
		default:
			err = d.errorf(e.key, e.field, "%s", unknownMsg("key", e.name, "valid keys", policyExampleKeys))
		}
		if err != nil {
			return ex, err
		}
	}
	for _, k := range []string{"name", "tool", "verdict"} {
		if !slices.ContainsFunc(entries, func(e entry) bool { return e.name == k }) {
			return ex, d.errorf(n, field, "has no %s; an example names itself, the tool it calls and the verdict (%s, %s or %s)", k, VerdictAllow, VerdictPrompt, VerdictDeny)
		}
	}
	return ex, nil
}

// jsonArgs turns a mapping node into the call's JSON arguments.
func (d *decoder) jsonArgs(n *yaml.Node, field string) (json.RawMessage, error) {
	if n.Kind != yaml.MappingNode {
		if err := d.noAlias(n, field); err != nil {
			return nil, err
		}
		return nil, d.wrongType(n, field, "a mapping of the call's arguments")
	}
	if err := d.noAliasBelow(n, field); err != nil {
		return nil, err
	}
	var v map[string]any
	if err := n.Decode(&v); err != nil {
		return nil, d.errorf(n, field, "cannot be read as the call's arguments: %v", err)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return nil, d.errorf(n, field, "cannot be written as JSON arguments (keys must be strings): %v", err)
	}
	return b, nil
}

// noAliasBelow refuses an alias or merge key anywhere under n.
func (d *decoder) noAliasBelow(n *yaml.Node, field string) error {
	if err := d.noAlias(n, field); err != nil {
		return err
	}
	if n.ShortTag() == "!!merge" {
		return d.errorf(n, field, "YAML merge keys (<<) are not allowed in an agent core; write the keys out")
	}
	for _, c := range n.Content {
		if err := d.noAliasBelow(c, field); err != nil {
			return err
		}
	}
	return nil
}

// Mismatch is the gate's error for an example the policy does not bear
// out: it names the example's file, line and field.
func (e PolicyExample) Mismatch(got, why string) error {
	msg := fmt.Sprintf("policy example %q (tool %s) expects %s, but the core's policy gives %s", clip(e.Name), e.Tool, e.Verdict, got)
	if why != "" {
		msg += ": " + why
	}
	return &LoadError{File: e.File, Line: e.Line, Column: e.Column, Field: e.Field, Msg: msg}
}
