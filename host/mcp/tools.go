package mcp

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"demiurge.dev/catalog"
	"demiurge.dev/host/core"
)

// Separator joins server id and tool name in a model-visible name.
const Separator = "__"

// ToolName is the model-visible name of a server's tool, or why it cannot
// be one: it must be valid for every provider as it is. A name is never
// rewritten to fit, so that two tools can never be silently merged.
func ToolName(server, tool string) (string, error) {
	name := server + Separator + tool
	if tool == "" {
		return "", fmt.Errorf("MCP server %s offers a tool with an empty name", server)
	}
	if err := catalog.ValidToolName(name); err != nil {
		return "", fmt.Errorf("MCP server %s tool %q cannot be offered as %q: %v; the host does not rename tools, so it is left out", server, clip(tool), clip(name), err)
	}
	return name, nil
}

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
		if _, err := catalog.CompileSchema(t.InputSchema); err != nil {
			diags = append(diags, fmt.Sprintf("MCP server %s tool %q is left out: its input schema is not usable: %v", s.ID, clip(t.Name), err))
			continue
		}
		out = append(out, offered{name: name, raw: t})
	}
	if len(out) > MaxToolsPerServer {
		return nil, diags, fmt.Errorf("offers %d tools, more than the %d a server may add; choose some with tools.include in %s", len(out), MaxToolsPerServer, s.File)
	}
	return out, diags, nil
}

// spec is the catalog entry of an offered tool. The host knows nothing of
// what an MCP tool does, so it starts at the third-party floor (medium
// risk, prompt) whatever the server's annotations claim; operators lower
// friction with approval rules.
func spec(s core.MCPServer, t offered) catalog.ToolSpec {
	effect := catalog.EffectExec
	if s.Transport == core.MCPHTTP {
		effect = catalog.EffectNetwork
	}
	return catalog.ToolSpec{
		Name: t.name, Description: t.raw.Description, InputSchema: t.raw.InputSchema,
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

func clip(s string) string {
	if len(s) <= 80 {
		return s
	}
	return s[:80] + "…"
}
