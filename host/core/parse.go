package core

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"demiurge.dev/catalog"
)

// topKeys are the keys agent.yaml accepts at its top level, in the order
// the documentation gives them.
var topKeys = []string{"name", "toolsets", "slots", "tools", "capabilities", "approvals", "workspace", "sandbox", "model"}

// parse decodes agent.yaml bytes. file names the file in errors; dir is
// the resolved core directory that slots and workspace are relative to,
// or "" for the embedded core, which may declare neither.
func parse(data []byte, file, dir string) (*Core, error) {
	if len(data) > MaxFileSize {
		return nil, &LoadError{File: file, Msg: fmt.Sprintf("is %d bytes, over the %d-byte limit; an agent core's agent.yaml is a short declaration", len(data), MaxFileSize)}
	}
	origin := file
	if dir != "" {
		origin = filepath.Base(file)
	}
	d := &decoder{file: file, origin: origin, dir: dir}
	root, err := d.document(data)
	if err != nil {
		return nil, err
	}
	sum := sha256.Sum256(data)
	c := &Core{
		Dir:      dir,
		File:     file,
		Metadata: map[string]catalog.Override{},
		Revision: hex.EncodeToString(sum[:]),
	}
	entries, err := d.mapping(root, "")
	if err != nil {
		return nil, err
	}
	for _, e := range entries {
		if err := d.topLevel(c, e); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// document returns the root node of the single YAML document in data.
func (d *decoder) document(data []byte) (*yaml.Node, error) {
	root, err := d.singleMapping(data, documentWording{
		empty:  "agent.yaml is empty; declare the core in it, e.g. \"toolsets: [coding]\"",
		second: "an agent core is one document, remove the \"---\" separator",
		keys:   topKeys,
	})
	if err != nil {
		return nil, err
	}
	return root, nil
}

// documentWording is what singleMapping says about one kind of file.
type documentWording struct {
	empty  string   // the file holds no document
	second string   // after "holds a second YAML document; "
	keys   []string // the keys the root mapping takes
}

// singleMapping returns the root mapping of the single YAML document in
// data: an empty file, a second document and a root that is not a mapping
// are errors with file and line.
func (d *decoder) singleMapping(data []byte, w documentWording) (*yaml.Node, *LoadError) {
	empty := &LoadError{File: d.file, Msg: w.empty}
	if len(bytes.TrimSpace(data)) == 0 {
		return nil, empty
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	var doc yaml.Node
	if err := dec.Decode(&doc); err != nil {
		if errors.Is(err, io.EOF) {
			return nil, empty // only comments
		}
		return nil, syntaxError(d.file, err)
	}
	var next yaml.Node
	switch err := dec.Decode(&next); {
	case errors.Is(err, io.EOF):
	case err != nil:
		return nil, syntaxError(d.file, err)
	default:
		return nil, d.errorf(&next, "", "holds a second YAML document; %s", w.second)
	}
	if doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return nil, empty
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.ShortTag() == "!!null" {
		return nil, empty
	}
	if root.Kind != yaml.MappingNode {
		return nil, d.errorf(root, "", "want a mapping with the keys %s, got %s", strings.Join(w.keys, ", "), describe(root))
	}
	return root, nil
}

// topLevel decodes one top-level key into c.
func (d *decoder) topLevel(c *Core, e entry) error {
	var err error
	switch e.name {
	case "name":
		c.Name, err = d.str(e.val, e.field)
	case "toolsets":
		c.Toolsets, err = d.toolsets(e.val, e.field)
	case "slots":
		c.ToolsRoot, c.MCPRoot, c.SkillsRoot, err = d.slots(e.val, e.field)
	case "tools":
		err = d.tools(e.val, e.field, c)
	case "capabilities":
		c.Capabilities, c.CapabilityAt, err = d.capabilities(e.val, e.field)
	case "approvals":
		c.Approvals, err = d.approvals(e.val, e.field)
	case "workspace":
		c.Workspace, err = d.workspace(e.val, e.field)
	case "sandbox":
		c.SandboxMode, c.SandboxRequire, err = d.sandbox(e.val, e.field, c)
	case "model":
		c.Model, err = d.model(e.val, e.field)
	default:
		err = d.errorf(e.key, e.field, "%s", unknownMsg("key", e.name, "valid keys", topKeys))
	}
	return err
}
