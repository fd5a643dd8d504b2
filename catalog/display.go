package catalog

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode"
)

// DisplayMode is how much of the catalog tools_list and /tools show.
type DisplayMode string

const (
	DisplayQuiet   DisplayMode = "quiet"   // names only
	DisplaySummary DisplayMode = "summary" // one aligned line per tool
	DisplayFull    DisplayMode = "full"    // everything, schemas included
)

// ParseDisplayMode reads quiet, summary or full.
func ParseDisplayMode(s string) (DisplayMode, error) {
	switch m := DisplayMode(strings.ToLower(strings.TrimSpace(s))); m {
	case DisplayQuiet, DisplaySummary, DisplayFull:
		return m, nil
	}
	return "", fmt.Errorf("unknown tool display %q (want quiet, summary or full)", s)
}

// Display renders the catalog for an operator's terminal. Text that comes
// from tool sources (names, descriptions, schemas) is stripped of control
// characters, so an MCP server cannot send escape sequences to the terminal.
func (c *Catalog) Display(mode DisplayMode) string {
	entries := c.sortedByName()
	var b strings.Builder
	switch mode {
	case DisplayQuiet:
		for _, e := range entries {
			b.WriteString(safeText(e.Spec.Name) + "\n")
		}
	case DisplayFull:
		for i, e := range entries {
			if i > 0 {
				b.WriteByte('\n')
			}
			writeFullEntry(&b, e)
		}
		writeCatalogNotes(&b, c)
	default: // summary, also for an unparsed mode: the useful middle ground
		if len(entries) == 0 {
			b.WriteString("no tools\n")
		} else {
			tw := tabwriter.NewWriter(&b, 0, 0, 2, ' ', 0)
			fmt.Fprintln(tw, "NAME\tSOURCE\tRISK\tAPPROVAL\tDESCRIPTION")
			for _, e := range entries {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", safeText(e.Spec.Name), sourceLabel(e.Spec.Provenance),
					e.Effective.Risk, e.Effective.ApprovalPolicy, firstLine(e.Spec.Description, 80))
			}
			tw.Flush()
		}
		for _, u := range c.unavailable {
			fmt.Fprintf(&b, "unavailable: %s (%s) needs capability %s, which this core does not grant\n",
				safeText(u.Tool), sourceLabel(u.Provenance), safeText(u.Missing))
		}
		if n := len(c.disabled) + len(c.Diagnostics()); n > 0 {
			fmt.Fprintf(&b, "(%d disabled, %d diagnostics: --tool-display full shows them)\n", len(c.disabled), len(c.Diagnostics()))
		}
	}
	return b.String()
}

func writeFullEntry(b *strings.Builder, e *Entry) {
	field := func(label, value string) {
		fmt.Fprintf(b, "  %-20s %s\n", label+":", value)
	}
	b.WriteString(safeText(e.Spec.Name) + "\n")
	desc := strings.Split(strings.TrimSpace(e.Spec.Description), "\n")
	for i, line := range desc {
		line = strings.TrimRight(line, " \t\r")
		switch {
		case i == 0:
			field("description", safeText(line))
		case line == "":
			b.WriteString("\n")
		default:
			fmt.Fprintf(b, "  %-20s %s\n", "", safeText(line))
		}
	}
	field("source", safeText(e.Spec.Provenance.String()))
	field("effect", string(e.Spec.Effect))
	if e.Spec.Precheck {
		field("precheck", "yes (checked before approval is asked)")
	}
	field("risk", policyValue(e.Effective.Risk.String(), e.Spec.Metadata.Risk.String()))
	field("approval", policyValue(e.Effective.ApprovalPolicy.String(), e.Spec.Metadata.ApprovalPolicy.String()))
	field("requires", orDash(strings.Join(e.RequiredCapabilities, ", ")))
	field("capabilities", orDash(strings.Join(e.Effective.Capabilities, ", ")))
	for i, g := range e.HostGrants {
		label := ""
		if i == 0 {
			label = "host grants:"
		}
		fmt.Fprintf(b, "  %-20s %s (%s, path %s)\n", label, safeText(g.Capability), safeText(g.Origin()), safeText(g.Pattern))
	}
	field("display policy", orDash(e.Effective.DisplayPolicy))
	field("model output policy", orDash(e.Effective.ModelOutputPolicy))
	if len(e.Spec.Subjects) == 0 {
		field("subjects", "-")
	}
	for i, s := range e.Spec.Subjects {
		label := ""
		if i == 0 {
			label = "subjects"
		}
		fmt.Fprintf(b, "  %-20s %s\n", label+map[bool]string{true: ":", false: ""}[label != ""], subjectText(s))
	}
	if e.StrictCompatible {
		field("openai strict", "yes")
	} else {
		field("openai strict", "no")
		for _, r := range e.StrictReasons {
			fmt.Fprintf(b, "  %-20s - %s\n", "", safeText(r))
		}
	}
	b.WriteString("  schema:\n")
	var pretty bytes.Buffer
	if err := json.Indent(&pretty, e.Schema.canonical, "    ", "  "); err == nil {
		b.WriteString("    " + safeMultiline(pretty.String()) + "\n")
	}
	if len(e.Diagnostics) > 0 {
		b.WriteString("  diagnostics:\n")
		for _, d := range e.Diagnostics {
			b.WriteString("    " + safeText(d.String()) + "\n")
		}
	}
}

func writeCatalogNotes(b *strings.Builder, c *Catalog) {
	for _, u := range c.unavailable {
		fmt.Fprintf(b, "\nunavailable: %s (%s) needs capability %s, which this core does not grant\n",
			safeText(u.Tool), sourceLabel(u.Provenance), safeText(u.Missing))
	}
	if len(c.disabled) > 0 {
		fmt.Fprintf(b, "\ndisabled by tools.metadata: %s\n", safeText(strings.Join(c.disabled, ", ")))
	}
	if len(c.diagnostics) > 0 {
		b.WriteString("\ndiagnostics:\n")
		for _, d := range c.diagnostics {
			b.WriteString("  " + safeText(d.String()) + "\n")
		}
	}
}

// policyValue shows the effective value, and the registry's when an
// override raised it.
func policyValue(effective, registry string) string {
	if effective == registry {
		return effective
	}
	return effective + " (registry " + registry + ", raised by tools.metadata)"
}

func subjectText(s Subject) string {
	t := fmt.Sprintf("%s: argument %q", s.Kind, safeText(s.Arg))
	if s.Access != "" {
		t += ", " + safeText(string(s.Access))
	}
	for _, x := range []struct{ k, v string }{{"cwd", s.CwdArg}, {"env", s.EnvArg}, {"background", s.BackgroundArg}, {"timeout", s.TimeoutArg}} {
		if x.v != "" {
			t += fmt.Sprintf(", %s %q", x.k, safeText(x.v))
		}
	}
	return t
}

// sourceLabel is the short source column: kind:toolset.
func sourceLabel(p Provenance) string {
	return string(p.Kind) + ":" + safeText(p.Toolset)
}

// firstLine is the description's first non-empty line, bounded.
func firstLine(s string, max int) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = strings.TrimSpace(s[:i])
	}
	s = safeText(s)
	if r := []rune(s); len(r) > max {
		return string(r[:max-1]) + "…"
	}
	return s
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// safeText makes source-supplied text safe for one terminal line: every
// character that is not graphic (escape sequences, newlines, bidi
// controls, invisible ones) is shown escaped instead of acted upon.
func safeText(s string) string {
	if strings.IndexFunc(s, unsafeRune) < 0 {
		return s
	}
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\t':
			b.WriteByte(' ')
		case unsafeRune(r) && r < 0x100:
			fmt.Fprintf(&b, `\x%02x`, r)
		case unsafeRune(r) && r <= 0xFFFF:
			fmt.Fprintf(&b, `\u%04x`, r)
		case unsafeRune(r):
			fmt.Fprintf(&b, `\U%08x`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func safeMultiline(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = safeText(l)
	}
	return strings.Join(lines, "\n")
}

// unsafeRune is every character but the graphic ones (letters, marks,
// numbers, punctuation, symbols, spaces): a closed world, so the
// invisible ones a list of controls missed (Unicode tag characters,
// zero-width and other format characters, line separators) are shown
// escaped too.
func unsafeRune(r rune) bool {
	return !unicode.IsGraphic(r)
}

// sortedByName are the entries sorted by name: the one order of the CLI's lists
// (README, "Lists"). The model's definitions keep the catalog's order.
func (c *Catalog) sortedByName() []*Entry {
	entries := slices.Clone(c.entries)
	slices.SortStableFunc(entries, func(a, b *Entry) int { return strings.Compare(a.Spec.Name, b.Spec.Name) })
	return entries
}
