package core

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.yaml.in/yaml/v3"
)

// decoder walks the yaml.Node tree of one agent.yaml. Walking nodes rather
// than unmarshalling into structs is what lets every error carry a line,
// a column and a dotted field path, and lets unknown keys be refused.
type decoder struct {
	file   string // LoadError.File
	origin string // prefix of catalog.Override.Origin, e.g. "agent.yaml"
	dir    string // resolved core directory; "" for the embedded core
}

// entry is one key: value pair of a mapping.
type entry struct {
	key, val *yaml.Node
	name     string // the key's text
	field    string // dotted path of the key
}

func (d *decoder) errorf(n *yaml.Node, field, format string, args ...any) *LoadError {
	e := &LoadError{File: d.file, Field: field, Msg: fmt.Sprintf(format, args...)}
	if n != nil {
		e.Line, e.Column = n.Line, n.Column
	}
	return e
}

func joinField(parent, key string) string {
	if parent == "" {
		return key
	}
	return parent + "." + key
}

// describe names a node's kind and value for "want X, got Y" messages.
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
			return "the number " + n.Value
		case "!!bool":
			return "the boolean " + n.Value
		default:
			return fmt.Sprintf("a value tagged %s", n.ShortTag())
		}
	}
	return "a YAML document"
}

// wrongType reports that n is not what field wants, with a hint for the
// usual slip of an unquoted scalar.
func (d *decoder) wrongType(n *yaml.Node, field, want string) *LoadError {
	msg := fmt.Sprintf("want %s, got %s", want, describe(n))
	if n.Kind == yaml.ScalarNode {
		switch tag := n.ShortTag(); {
		case tag == "!!null":
			msg += "; give a value or remove the key"
		case want == "a string" && (tag == "!!int" || tag == "!!float" || tag == "!!bool"):
			msg += "; quote it if you mean text"
		}
	}
	return d.errorf(n, field, "%s", msg)
}

// noAlias refuses YAML aliases: agent.yaml is small, and expanding aliases
// is how a few bytes of YAML become gigabytes.
func (d *decoder) noAlias(n *yaml.Node, field string) error {
	if n.Kind == yaml.AliasNode {
		return d.errorf(n, field, "YAML aliases (*%s) are not allowed in an agent core; write the value out", n.Value)
	}
	return nil
}

// mapping returns the entries of a mapping node in file order, refusing
// non-string and duplicate keys.
func (d *decoder) mapping(n *yaml.Node, field string) ([]entry, error) {
	if err := d.noAlias(n, field); err != nil {
		return nil, err
	}
	if n.Kind != yaml.MappingNode {
		return nil, d.wrongType(n, field, "a mapping")
	}
	seen := make(map[string]int, len(n.Content)/2)
	entries := make([]entry, 0, len(n.Content)/2)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if err := d.noAlias(k, field); err != nil {
			return nil, err
		}
		if k.ShortTag() == "!!merge" {
			return nil, d.errorf(k, field, "YAML merge keys (<<) are not allowed in an agent core; write the keys out")
		}
		if k.Kind != yaml.ScalarNode || k.ShortTag() != "!!str" {
			return nil, d.errorf(k, field, "keys must be plain names, got %s", describe(k))
		}
		f := joinField(field, clip(k.Value))
		if line, dup := seen[k.Value]; dup {
			return nil, d.errorf(k, f, "duplicate key %q (first at line %d); keep one", clip(k.Value), line)
		}
		seen[k.Value] = k.Line
		entries = append(entries, entry{key: k, val: v, name: k.Value, field: f})
	}
	return entries, nil
}

// str returns a non-empty single-line string scalar.
func (d *decoder) str(n *yaml.Node, field string) (string, error) {
	if err := d.noAlias(n, field); err != nil {
		return "", err
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!str" {
		return "", d.wrongType(n, field, "a string")
	}
	if strings.TrimSpace(n.Value) == "" {
		return "", d.errorf(n, field, "is empty; give a value or remove the key")
	}
	if i := strings.IndexFunc(n.Value, unicode.IsControl); i >= 0 {
		r, _ := utf8.DecodeRuneInString(n.Value[i:])
		return "", d.errorf(n, field, "contains the control character %q; use a single line of plain text", r)
	}
	return n.Value, nil
}

// boolean returns a true/false scalar.
func (d *decoder) boolean(n *yaml.Node, field string) (bool, error) {
	if err := d.noAlias(n, field); err != nil {
		return false, err
	}
	if n.Kind != yaml.ScalarNode || n.ShortTag() != "!!bool" {
		return false, d.wrongType(n, field, "true or false")
	}
	var b bool
	if err := n.Decode(&b); err != nil {
		return false, d.errorf(n, field, "want true or false: %v", err)
	}
	return b, nil
}

// list returns the items of a sequence node with their field paths.
func (d *decoder) list(n *yaml.Node, field string) ([]*yaml.Node, error) {
	if err := d.noAlias(n, field); err != nil {
		return nil, err
	}
	if n.Kind != yaml.SequenceNode {
		return nil, d.wrongType(n, field, "a list")
	}
	return n.Content, nil
}

func itemField(field string, i int) string { return fmt.Sprintf("%s[%d]", field, i) }

// strList returns a list of distinct non-empty strings; what names the
// items in the duplicate message ("toolset", "capability").
func (d *decoder) strList(n *yaml.Node, field, what string) ([]string, []*yaml.Node, error) {
	items, err := d.list(n, field)
	if err != nil {
		return nil, nil, err
	}
	out := make([]string, 0, len(items))
	seen := make(map[string]int, len(items))
	for i, it := range items {
		f := itemField(field, i)
		s, err := d.str(it, f)
		if err != nil {
			return nil, nil, err
		}
		if line, dup := seen[s]; dup {
			return nil, nil, d.errorf(it, f, "duplicate %s %q (first at line %d); list it once", what, clip(s), line)
		}
		seen[s] = it.Line
		out = append(out, s)
	}
	return out, items, nil
}
