package core

import (
	"regexp"
	"slices"
	"strconv"

	"go.yaml.in/yaml/v3"

	"demiurge.dev/catalog"
)

// toolName is a model-visible tool name every provider accepts (OpenAI and
// Anthropic allow ^[a-zA-Z0-9_-]{1,64}$); a metadata or approval entry for
// any other name could never match a tool.
var toolName = regexp.MustCompile(`^[A-Za-z0-9_-]{1,64}$`)

var toolsKeys = []string{"metadata", "deferred", "untrusted_reads"}

var metadataKeys = []string{"risk", "capability", "approval_policy", "model_output_policy", "display_policy", "enabled"}

// tools decodes the tools: mapping, whose keys are metadata, deferred and
// untrusted_reads, into c.
func (d *decoder) tools(n *yaml.Node, field string, c *Core) error {
	entries, err := d.mapping(n, field)
	if err != nil {
		return err
	}
	c.Metadata = map[string]catalog.Override{}
	for _, e := range entries {
		switch e.name {
		case "metadata":
			c.Metadata, err = d.metadata(e.val, e.field)
		case "deferred":
			c.Deferred, err = d.deferred(e.val, e.field)
		case "untrusted_reads":
			c.UntrustedReads, err = d.boolean(e.val, e.field)
		default:
			err = d.errorf(e.key, e.field, "%s", unknownMsg("key", e.name, "valid keys", toolsKeys))
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// deferred decodes tools.deferred: toolset names, MCP server ids or tool
// names. Which of them exist is known only when the catalog resolves
// (MCP servers and plugins come later), so a name that matches nothing is
// a catalog diagnostic, not a load error; here each must at least be a
// name a tool, toolset or server could have.
func (d *decoder) deferred(n *yaml.Node, field string) ([]string, error) {
	names, items, err := d.strList(n, field, "deferred name")
	if err != nil {
		return nil, err
	}
	for i, name := range names {
		if !toolName.MatchString(name) {
			return nil, d.errorf(items[i], itemField(field, i), "%q is not a toolset, MCP server or tool name (want 1-64 letters, digits, _ or -)", clip(name))
		}
		if u, ok := catalog.UnbuiltTool(name); ok {
			return nil, d.errorf(items[i], itemField(field, i), "%s is in the Tools reference (toolset %s), but this build does not implement it yet, so there is nothing to defer; remove it", u.Tool, u.Toolset)
		}
		if _, unbuilt := catalog.UnbuiltToolset(name); unbuilt {
			return nil, d.errorf(items[i], itemField(field, i), "toolset %s is in the Tools reference, but this build does not implement it yet, so there is nothing to defer; remove it", name)
		}
		if name == "search_capabilities" {
			// It is how a session finds deferred tools.
			return nil, d.errorf(items[i], itemField(field, i), "search_capabilities cannot be deferred: it is how a session finds deferred tools")
		}
	}
	return names, nil
}

// metadata decodes tools.metadata: tool name → override. Whether each
// override only tightens the tool's registry policy is checked when the
// catalog resolves, where the registry values are known.
func (d *decoder) metadata(n *yaml.Node, field string) (map[string]catalog.Override, error) {
	entries, err := d.mapping(n, field)
	if err != nil {
		return nil, err
	}
	out := make(map[string]catalog.Override, len(entries))
	for _, e := range entries {
		if !toolName.MatchString(e.name) {
			return nil, d.errorf(e.key, e.field, "%q is not a tool name (want 1-64 letters, digits, _ or -)", clip(e.name))
		}
		if u, ok := catalog.UnbuiltTool(e.name); ok {
			return nil, d.errorf(e.key, e.field, "%s is in the Tools reference (toolset %s), but this build does not implement it yet, so it has no metadata to override; remove the entry", u.Tool, u.Toolset)
		}
		o, err := d.override(e.val, e.field)
		if err != nil {
			return nil, err
		}
		o.Origin = d.origin + ":" + strconv.Itoa(e.key.Line)
		out[e.name] = o
	}
	return out, nil
}

// override decodes one tool's metadata entry.
func (d *decoder) override(n *yaml.Node, field string) (catalog.Override, error) {
	var o catalog.Override
	entries, err := d.mapping(n, field)
	if err != nil {
		return o, err
	}
	if len(entries) == 0 {
		return o, d.errorf(n, field, "is an empty override; set one of risk, capability, approval_policy, model_output_policy, display_policy, enabled or remove it")
	}
	for _, e := range entries {
		if err := d.overrideKey(&o, e); err != nil {
			return o, err
		}
	}
	return o, nil
}

func (d *decoder) overrideKey(o *catalog.Override, e entry) error {
	if !slices.Contains(metadataKeys, e.name) {
		return d.errorf(e.key, e.field, "%s", unknownMsg("metadata key", e.name, "valid keys", metadataKeys))
	}
	if e.name == "enabled" {
		b, err := d.boolean(e.val, e.field)
		if err != nil {
			return err
		}
		o.Enabled = &b
		return nil
	}
	s, err := d.str(e.val, e.field)
	if err != nil {
		return err
	}
	switch e.name {
	case "risk":
		// clip before parsing: no valid value is long, and the error
		// quotes what it was given.
		r, err := catalog.ParseRisk(clip(s))
		if err != nil {
			return d.errorf(e.val, e.field, "%s", err.Error())
		}
		o.Risk = &r
	case "approval_policy":
		a, err := catalog.ParseApprovalPolicy(clip(s))
		if err != nil {
			return d.errorf(e.val, e.field, "%s", err.Error())
		}
		o.ApprovalPolicy = &a
	case "capability":
		o.Capability = &s
	case "model_output_policy":
		if err := catalog.CheckModelOutputPolicy(s); err != nil {
			return d.errorf(e.val, e.field, "%s", clip(err.Error()))
		}
		o.ModelOutputPolicy = &s
	case "display_policy":
		if err := catalog.CheckDisplayPolicy(s); err != nil {
			return d.errorf(e.val, e.field, "%s", clip(err.Error()))
		}
		o.DisplayPolicy = &s
	}
	return nil
}
