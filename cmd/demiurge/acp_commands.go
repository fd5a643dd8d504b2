package main

import (
	"context"
	"fmt"
	"strings"

	acp "github.com/coder/acp-go-sdk"
)

// acpCommands are the host's slash commands an editor's session offers:
// the ones that mean something without a terminal (/stop is the
// editor's cancel button: session/cancel).
var acpCommands = []acp.AvailableCommand{
	{Name: "tools", Description: "the tools this session's model sees (the catalog as the host resolves it for this session)",
		Input: &acp.AvailableCommandInput{Unstructured: &acp.UnstructuredCommandInput{Hint: "quiet | summary | full"}}},
	{Name: "approvals", Description: "this session's live approvals (allow always); revoke N or all",
		Input: &acp.AvailableCommandInput{Unstructured: &acp.UnstructuredCommandInput{Hint: "revoke N | revoke all"}}},
	{Name: "session", Description: "this session's id (session/load opens it again)"},
	{Name: "help", Description: "what these commands do"},
}

func (s *acpSession) offerCommands(ctx context.Context) {
	s.send(ctx, acp.SessionUpdate{AvailableCommandsUpdate: &acp.SessionAvailableCommandsUpdate{AvailableCommands: acpCommands}})
}

// command runs one slash command and returns what it says.
func (s *acpSession) command(ctx context.Context, line string) string {
	name, rest, _ := strings.Cut(strings.TrimSpace(line), " ")
	rest = strings.TrimSpace(rest)
	switch name {
	case "/tools":
		mode := rest
		if mode == "" {
			mode = "summary"
		}
		text, notes, err := s.hs.Tools(ctx, s.agent.c.String("principal"), mode)
		if err != nil {
			return err.Error() + "\n"
		}
		var b strings.Builder
		for _, w := range notes {
			fmt.Fprintf(&b, "warning: %s\n", w)
		}
		b.WriteString(text)
		return b.String()
	case "/approvals":
		return s.approvals(rest)
	case "/session":
		return fmt.Sprintf("session %s\n", s.id())
	case "/help":
		var b strings.Builder
		for _, c := range acpCommands {
			fmt.Fprintf(&b, "/%s  %s\n", c.Name, c.Description)
		}
		b.WriteString("the editor's stop button stops a turn (session/cancel)\n")
		return b.String()
	}
	names := make([]string, len(acpCommands))
	for i, c := range acpCommands {
		names[i] = "/" + c.Name
	}
	return fmt.Sprintf("unknown command %s%s; /help lists the commands\n", printable(name, 40), didYouMeanSuffix(name, names))
}

// approvals is /approvals: this session's allows as the host lists them,
// after the revoke asked for.
func (s *acpSession) approvals(arg string) string {
	n, all, refusal := parseApprovalsArg(arg)
	if refusal != "" {
		return refusal + "\n"
	}
	list, note, err := hostAllows(s.hs, n, all)
	switch {
	case err != nil:
		return err.Error() + "\n"
	case note != "":
		return note + "\n"
	}
	var b strings.Builder
	writeApprovals(&b, list, printable)
	return b.String()
}
