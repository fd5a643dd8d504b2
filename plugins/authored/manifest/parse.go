package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"demiurge.dev/shared/hiddentext"
	"go.yaml.in/yaml/v3"
)

// Parse decodes tool.yaml bytes; file names the file in errors. It checks
// the fields' syntax only: whether the entrypoint exists is Load's job.
func Parse(data []byte, file string) (*Manifest, error) {
	if len(data) > MaxFileSize {
		return nil, &Error{File: file, Msg: fmt.Sprintf("is %d bytes, over the %d-byte limit; tool.yaml is a short declaration", len(data), MaxFileSize)}
	}
	d := &decoder{file: file}
	m := Defaults()
	root, err := d.document(data)
	if err != nil || root == nil {
		return &m, err // an empty tool.yaml takes every default
	}
	if root.Kind != yaml.MappingNode {
		return nil, d.errorf(root, "", "want a mapping with the fields %s, got %s", quoteList(Fields), describe(root))
	}
	seen := map[string]int{}
	for i := 0; i+1 < len(root.Content); i += 2 {
		k, v := root.Content[i], root.Content[i+1]
		if err := d.key(k, seen); err != nil {
			return nil, err
		}
		if err := d.field(&m, k.Value, k, v); err != nil {
			return nil, err
		}
	}
	return &m, nil
}

// decoder walks the yaml.Node tree: walking nodes rather than unmarshalling
// into a struct is what gives every error a line and refuses unknown keys.
type decoder struct{ file string }

func (d *decoder) errorf(n *yaml.Node, field, format string, args ...any) *Error {
	e := &Error{File: d.file, Field: field, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	return e
}

var yamlLine = regexp.MustCompile(`^yaml: line (\d+): `)

func (d *decoder) document(data []byte) (*yaml.Node, error) {
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, nil
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, nil
		}
		return nil, d.syntax(err)
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, d.syntax(err)
	default:
		return nil, d.errorf(&next, "", "holds a second YAML document; tool.yaml is one document, remove the \"---\" separator")
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return nil, nil
	}
	if n, r := hiddenIn(root); n != nil {
		return nil, d.errorf(n, "", "holds U+%04X, an invisible character (a Unicode tag character or a bidi control) that would make the model read what the operator cannot see; remove it", r)
	}
	return root, nil
}

// hiddenIn finds the first node whose decoded text (a key or a value, so
// YAML's \U escapes hide nothing) holds a character of hiddentext: a
// description or schema goes to the model outside any envelope, and a
// core's files are what an agent may write and the operator reviews.
func hiddenIn(n *yaml.Node) (*yaml.Node, rune) {
	if r, ok := hiddentext.First(n.Value); ok {
		return n, r
	}
	for _, c := range n.Content {
		if at, r := hiddenIn(c); at != nil {
			return at, r
		}
	}
	return nil, 0
}

func (d *decoder) syntax(err error) *Error {
	msg, line := err.Error(), 0
	if m := yamlLine.FindStringSubmatch(msg); m != nil {
		fmt.Sscan(m[1], &line)
		msg = msg[len(m[0]):]
	}
	msg = strings.TrimPrefix(msg, "yaml: ")
	return &Error{File: d.file, Line: line, Msg: "invalid YAML: " + msg, Err: err}
}

// key checks one top-level key: a plain, unique, known field name.
func (d *decoder) key(k *yaml.Node, seen map[string]int) error {
	if k.Kind == yaml.AliasNode {
		return d.errorf(k, "", "YAML aliases are not allowed in tool.yaml; write the value out")
	}
	if k.ShortTag() == "!!merge" {
		return d.errorf(k, "", "YAML merge keys (<<) are not allowed in tool.yaml; write the fields out")
	}
	if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
		return d.errorf(k, "", "field names must be plain names, got %s", describe(k))
	}
	name := clip(k.Value)
	if line, dup := seen[k.Value]; dup {
		return d.errorf(k, name, "duplicate field (first at line %d); keep one", line)
	}
	seen[k.Value] = k.Line
	if slices.Contains(SlotOnlyFields, k.Value) {
		return d.errorf(k, name, "is a slot-only field, which tool.yaml does not accept (slot-only fields: %s); remove it", quoteList(SlotOnlyFields))
	}
	if !slices.Contains(Fields, k.Value) {
		return d.errorf(k, name, "%s", unknownMsg("field", k.Value, Fields))
	}
	return nil
}

func (d *decoder) field(m *Manifest, name string, k, v *yaml.Node) error {
	var err error
	switch name {
	case "entrypoint":
		var s string
		if s, err = d.str(v, name, false); err == nil {
			if m.Entrypoint, err = ParseEntrypoint(s); err != nil {
				err = d.errorf(v, name, "%v", err)
			}
		}
	case "description":
		m.Description, err = d.text(v, name)
	case "input_schema":
		m.InputSchema, err = d.schema(v, name)
	case "risk":
		m.Risk, err = d.oneOf(v, name, risks)
	case "capability":
		if isNull(v) {
			m.Capability = ""
			return nil
		}
		m.Capability, err = d.capability(v, name)
	case "approval_policy":
		m.ApprovalPolicy, err = d.oneOf(v, name, approvalPolicies)
	case "display_policy":
		m.DisplayPolicy, err = d.oneOf(v, name, displayPolicies)
	case "model_output_policy":
		m.ModelOutputPolicy, err = d.oneOf(v, name, modelOutputPolicies)
	case "capabilities":
		m.Capabilities, err = d.capabilityList(v, name)
	}
	return err
}

func isNull(n *yaml.Node) bool { return n.Kind == yaml.ScalarNode && n.ShortTag() == "!!null" }

// str returns a non-empty single-line string.
func (d *decoder) str(n *yaml.Node, field string, allowEmpty bool) (string, error) {
	if n.Kind == yaml.AliasNode {
		return "", d.errorf(n, field, "YAML aliases are not allowed in tool.yaml; write the value out")
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		msg := "want a string, got " + describe(n)
		if n.Kind == yaml.ScalarNode && n.ShortTag() != "!!null" {
			msg += "; quote it if you mean text"
		}
		return "", d.errorf(n, field, "%s", msg)
	}
	if !allowEmpty && strings.TrimSpace(n.Value) == "" {
		return "", d.errorf(n, field, "is empty; give a value or remove the field")
	}
	if i := strings.IndexFunc(n.Value, unicode.IsControl); i >= 0 && !allowEmpty {
		return "", d.errorf(n, field, "contains a control character; use a single line of plain text")
	}
	return n.Value, nil
}

// text is a free string (the description may span lines).
func (d *decoder) text(n *yaml.Node, field string) (string, error) {
	if isNull(n) {
		return "", nil
	}
	return d.str(n, field, true)
}

func (d *decoder) oneOf(n *yaml.Node, field string, valid []string) (string, error) {
	s, err := d.str(n, field, false)
	if err != nil {
		return "", err
	}
	if !slices.Contains(valid, s) {
		return "", d.errorf(n, field, "%q is not one of %s", clip(s), quoteList(valid))
	}
	return s, nil
}

// capabilityPattern is the shape of a capability name: dotted lower-case
// words, optionally ":" and a target (mcp.call:docs, secret.bind:API_KEY).
var capabilityPattern = regexp.MustCompile(`^[a-z][a-z0-9_]*(\.[a-z][a-z0-9_]*)+(:[A-Za-z0-9_.\-/]+)?$`)

func (d *decoder) capability(n *yaml.Node, field string) (string, error) {
	s, err := d.str(n, field, false)
	if err != nil {
		return "", err
	}
	if len(s) > 200 || !capabilityPattern.MatchString(s) {
		return "", d.errorf(n, field, "%q is not a capability name such as fs.read or tool.call:project_note", clip(s))
	}
	return s, nil
}

func (d *decoder) capabilityList(n *yaml.Node, field string) ([]string, error) {
	if isNull(n) {
		return []string{}, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, d.errorf(n, field, "want a list of capability names, got %s", describe(n))
	}
	out := make([]string, 0, len(n.Content))
	for i, it := range n.Content {
		f := fmt.Sprintf("%s[%d]", field, i)
		s, err := d.capability(it, f)
		if err != nil {
			return nil, err
		}
		if slices.Contains(out, s) {
			return nil, d.errorf(it, f, "duplicate capability %q; list it once", s)
		}
		out = append(out, s)
	}
	return out, nil
}

func describe(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "a mapping"
	case yaml.SequenceNode:
		return "a list"
	case yaml.AliasNode:
		return "an alias"
	case yaml.ScalarNode:
		switch n.ShortTag() {
		case "!!null":
			return "nothing (null)"
		case "!!str":
			return fmt.Sprintf("the string %q", clip(n.Value))
		case "!!int", "!!float":
			return "the number " + clip(n.Value)
		case "!!bool":
			return "the boolean " + n.Value
		}
		return "a value tagged " + n.ShortTag()
	}
	return "a YAML document"
}
