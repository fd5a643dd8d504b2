package mcp

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"demiurge.dev/catalog"
	"demiurge.dev/host/core"
)

// Separator joins server id and tool name in a model-visible name.
const Separator = "__"

// offered is one tool that made it through filters, naming and schema
// checks.
type offered struct {
	name string // model-visible
	raw  rawTool
}

// selectTools applies tools.include and tools.exclude (to the server's own
// names, before naming), names what remains and checks each schema
// compiles. It returns the tools offered, in the server's order, and one
// diagnostic per refused tool.
func selectTools(s core.MCPServer, tools []rawTool) ([]offered, []string, error) {
	var out []offered
	var diags []string
	// positions are the 1-based places of each name in the server's list.
	positions := map[string][]int{}
	for i, t := range tools {
		positions[t.Name] = append(positions[t.Name], i+1)
	}
	// kept are the tools that pass the filters, named; byName the server
	// names behind each model name, to find collisions.
	var kept []offered
	byName := map[string][]string{}
	for i, t := range tools {
		if len(s.Include) > 0 && !slices.Contains(s.Include, t.Name) {
			continue
		}
		if slices.Contains(s.Exclude, t.Name) {
			continue
		}
		name, err := ToolName(s.ID, t.Name)
		if err != nil {
			diags = append(diags, err.Error())
			continue
		}
		if at := positions[t.Name]; len(at) > 1 {
			// One diagnostic for all the copies, said at the first.
			if at[0] == i+1 {
				diags = append(diags, fmt.Sprintf("MCP server %s lists tool %q %d times (entries %s of its tools/list); every copy is left out rather than one picked, so %s is not offered; ask the server to fix its list", s.ID, clip(t.Name), len(at), joinInts(at), name))
			}
			continue
		}
		kept = append(kept, offered{name: name, raw: t})
		byName[name] = append(byName[name], t.Name)
	}
	for _, k := range kept {
		if others := byName[k.name]; len(others) > 1 {
			// One diagnostic per collision, said at the first of its tools.
			if others[0] == k.raw.Name {
				quoted := make([]string, len(others))
				for i, o := range others {
					quoted[i] = strconv.Quote(clip(o))
				}
				diags = append(diags, fmt.Sprintf("MCP server %s tools %s all become %s under the naming rule; none of them is offered rather than one picked; ask the server to rename one, or leave the others out with tools.exclude", s.ID, strings.Join(quoted, " and "), k.name))
			}
			continue
		}
		if hid := invisibleIn(k.raw); hid != "" {
			diags = append(diags, fmt.Sprintf("MCP server %s tool %q is left out: %s, an invisible character (a Unicode tag character or a bidi control) that would make the model read what the operator cannot see; ask the server to remove it", s.ID, clip(k.raw.Name), hid))
			continue
		}
		if why := schemaCost(k.raw.InputSchema); why != "" {
			diags = append(diags, fmt.Sprintf("MCP server %s tool %q is left out: its input schema is not usable: %s", s.ID, clip(k.raw.Name), why))
			continue
		}
		if _, err := catalog.CompileSchema(k.raw.InputSchema); err != nil {
			diags = append(diags, fmt.Sprintf("MCP server %s tool %q is left out: its input schema is not usable: %v", s.ID, clip(k.raw.Name), err))
			continue
		}
		out = append(out, k)
	}
	if len(out) > MaxToolsPerServer {
		return nil, diags, fmt.Errorf("offers %d tools, more than the %d a server may add; choose some with tools.include in %s", len(out), MaxToolsPerServer, s.File)
	}
	return out, diags, nil
}

// spec is the catalog entry of an offered tool. The host knows nothing of
// what an MCP tool does, so it starts at the third-party floor (medium
// risk, prompt) whatever the server's annotations claim; operators lower
// friction with approval rules. The description and input schema reach
// the model: the server's declared values and the host's credentials are
// replaced in them, in the schema however its JSON spells them (the pins
// keep the definition as the server sent it).
func spec(pl *plan, t offered) catalog.ToolSpec {
	s := pl.server
	schema := t.raw.InputSchema
	if len(schema) > 0 {
		if schema = structuredRedacted(pl.secrets, schema); schema == nil {
			schema = json.RawMessage(`{"type":"object"}`)
		}
	}
	effect := catalog.EffectExec
	if s.Transport == core.MCPHTTP {
		effect = catalog.EffectNetwork
	}
	return catalog.ToolSpec{
		Name: t.name, Description: pl.secrets.String(t.raw.Description), InputSchema: schema,
		Metadata:   catalog.Metadata{Risk: catalog.RiskMedium, ApprovalPolicy: catalog.ApprovalPrompt, Capability: s.CallCapability()},
		Effect:     effect,
		Provenance: catalog.Provenance{Kind: catalog.SourceMCP, Toolset: s.ID, Path: s.File},
	}
}

func joinInts(v []int) string {
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = strconv.Itoa(n)
	}
	return strings.Join(parts, ", ")
}

// clip is a server's name as a diagnostic quotes it: its first 80 runes.
func clip(s string) string { return clipRunes(s, 80) }
