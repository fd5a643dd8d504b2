package main

import (
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"text/tabwriter"

	"demiurge.dev/sdk"
)

//go:embed tools_list.md
var toolsListDoc string

type toolsListParams struct {
	Mode string `json:"mode,omitempty" jsonschema:"enum=quiet,enum=summary,enum=full" jsonschema_description:"How much to show: quiet (names), summary (default) or full."`
}

// toolPayload is one tool as the model sees it in tools_list.
type toolPayload struct {
	Name        string   `json:"name"`
	Source      string   `json:"source"`
	Effect      string   `json:"effect,omitempty"`
	Risk        string   `json:"risk"`
	Approval    string   `json:"approval"`
	Requires    []string `json:"requires,omitempty"`
	Description string   `json:"description,omitempty"`
	// Disclosure is "deferred" (search_capabilities activates it) or
	// "active" (activated in this session); empty for the others.
	Disclosure string `json:"disclosure,omitempty"`
}

// shownName is the name with its disclosure state, if any.
func (t toolPayload) shownName() string {
	if t.Disclosure == "" {
		return t.Name
	}
	return t.Name + " (" + t.Disclosure + ")"
}

// summaryDescription bounds the one description line of summary mode.
const summaryDescription = 100

// The catalog is the host's: this tool only asks for the calling turn's
// and renders it, so what it lists is what the turn may call.
func newToolsList() sdk.Tool {
	return sdk.Define(sdk.Spec{
		Name: "tools_list", Description: toolsListDoc, Effect: sdk.EffectRead,
		Metadata: sdk.Metadata{Risk: "low", ApprovalPolicy: "auto", DisplayPolicy: "summary"},
	}, func(ctx *sdk.Context, p toolsListParams) (*sdk.Result, error) {
		mode := p.Mode
		if mode == "" {
			mode = "summary"
		}
		if mode != "quiet" && mode != "summary" && mode != "full" {
			return sdk.Errorf("invalid_mode", "tools_list: unknown mode %q; use quiet, summary or full", shortArg(mode)), nil
		}
		listed, err := ctx.ToolsList()
		if err != nil {
			if errors.Is(err, sdk.ErrNoHost) {
				return sdk.Errorf("unavailable", "the tool catalog is not available here"), nil
			}
			return sdk.Errorf("unavailable", "%s", sdk.HostMessage(err)), nil
		}
		tools := make([]toolPayload, len(listed))
		for i, l := range listed {
			tools[i] = toolPayload{Name: l.GetName(), Source: l.GetSource(), Effect: l.GetEffect(), Risk: l.GetRisk(),
				Approval: l.GetApproval(), Requires: l.GetRequires(), Description: l.GetDescription(), Disclosure: l.GetDisclosure()}
		}
		return &sdk.Result{Content: renderTools(tools, mode), Structured: map[string]any{"tools": tools}}, nil
	})
}

// renderTools is the listing's text in one of the display modes, the
// same modes as the operator's --tool-display.
func renderTools(tools []toolPayload, mode string) string {
	var b strings.Builder
	if len(tools) == 0 {
		return "No tools in this turn.\n"
	}
	switch mode {
	case "quiet":
		for _, t := range tools {
			b.WriteString(t.shownName() + "\n")
		}
	case "full":
		for i, t := range tools {
			if i > 0 {
				b.WriteByte('\n')
			}
			fmt.Fprintf(&b, "%s\n  source: %s\n  effect: %s\n  risk: %s\n  approval: %s\n  requires: %s\n",
				t.shownName(), t.Source, orDash(t.Effect), t.Risk, t.Approval, orDash(strings.Join(t.Requires, ", ")))
			if t.Description != "" {
				b.WriteString("  description:\n")
				for _, line := range strings.Split(t.Description, "\n") {
					b.WriteString(strings.TrimRight("    "+line, " \t") + "\n")
				}
			}
		}
	default:
		tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "NAME\tSOURCE\tRISK\tAPPROVAL\tDESCRIPTION")
		for _, t := range tools {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", t.shownName(), t.Source, t.Risk, t.Approval, firstLine(t.Description, summaryDescription))
		}
		tw.Flush()
	}
	return b.String()
}

// firstLine is the description's first non-empty line, bounded.
func firstLine(s string, limit int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	if r := []rune(s); len(r) > limit {
		return string(r[:limit-1]) + "…"
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
