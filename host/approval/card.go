package approval

import (
	"fmt"
	"strconv"
	"strings"

	"demiurge.dev/host/approval/prompt"
	"demiurge.dev/host/policy"
)

// MaxPreviewRunes bounds the preview a prompt shows; the arguments come
// from the model and may be large.
const MaxPreviewRunes = 600

// maxBlockLineRunes bounds one line of a multi-line preview (a diff).
const maxBlockLineRunes = 200

// CardText is the approval card's fields (tool, risk, policy, reasons,
// subjects, preview) as inert text, without the answer prompt: what a
// provider that asks elsewhere (an MCP client's elicitation) shows.
func CardText(req Request) string {
	var b strings.Builder
	cardBody(&b, req)
	return strings.TrimSpace(b.String())
}

func cardBody(b *strings.Builder, req Request) {
	fmt.Fprintf(b, "\napproval needed: %s  (risk %s, policy %s)\n", Inert(req.Tool), req.Risk, req.Policy)
	for _, r := range req.ShownReasons() {
		fmt.Fprintf(b, "  why      %s\n", Inert(r))
	}
	for _, s := range req.ShownSubjects() {
		where := ""
		if s.Kind == "path" {
			where = " (inside the workspace)"
			if !s.Inside {
				where = " (OUTSIDE the workspace)"
			}
			if s.Sensitive {
				where += " (credential-like)"
			}
			if s.Protected {
				where += " (PROTECTED: writing it changes what the agent may do)"
			}
			fmt.Fprintf(b, "  %-8s %s %s%s\n", s.Kind, s.Access, Inert(s.Resolved), where)
			continue
		}
		fmt.Fprintf(b, "  %-8s %s\n", s.Kind, Inert(s.Value))
		if s.Command != nil {
			writeCommandShape(b, s)
			for _, t := range s.Command.ProtectedWrites {
				fmt.Fprintf(b, "  %-8s %s (PROTECTED: writing it changes what the agent may do)\n", "writes", Inert(t))
			}
		}
	}
	if req.Sandbox != "" {
		fmt.Fprintf(b, "  sandbox  %s\n", Inert(req.Sandbox))
	}
	switch {
	case strings.Contains(req.Preview, "\n"):
		// A block (a file write's diff, an MCP server's launch metadata:
		// arguments as JSON never hold a raw newline), each line inert and
		// bounded.
		label := "preview"
		if strings.HasPrefix(req.Preview, "--- ") {
			label = "change"
		}
		fmt.Fprintf(b, "  %s\n", label)
		for _, line := range strings.Split(req.Preview, "\n") {
			fmt.Fprintf(b, "    %s\n", Inert(truncateRunes(line, maxBlockLineRunes)))
		}
	case req.Preview != "":
		fmt.Fprintf(b, "  preview  %s\n", Inert(truncateRunes(req.Preview, MaxPreviewRunes)))
	}
}

// Inert escapes control and format characters (ANSI escapes, carriage
// returns, bidi overrides) so they print as text: for the card's own
// fields and for text a card carries from someone else (an MCP server's
// form).
func Inert(s string) string { return prompt.Inert(s) }

func truncateRunes(s string, n int) string { return prompt.TruncateRunes(s, n) }

// writeCommandShape shows where and how a command runs: cwd, the
// environment overlay's keys (never its values), background and timeout.
func writeCommandShape(b *strings.Builder, s policy.SubjectFact) {
	c := s.Command
	where := ""
	if !s.Inside {
		where = " (OUTSIDE the workspace)"
	}
	fmt.Fprintf(b, "  %-8s %s%s\n", "cwd", Inert(s.Resolved), where)
	if len(c.EnvKeys) > 0 {
		keys := make([]string, len(c.EnvKeys))
		for i, k := range c.EnvKeys {
			keys[i] = Inert(k)
		}
		fmt.Fprintf(b, "  %-8s %s (values not shown)\n", "env", strings.Join(keys, ", "))
	}
	mode := "foreground"
	if c.Background {
		mode = "background"
	}
	if c.Timeout != 0 {
		mode += ", timeout " + strconv.FormatFloat(c.Timeout, 'g', -1, 64) + "s"
	}
	fmt.Fprintf(b, "  %-8s %s\n", "runs", mode)
}
