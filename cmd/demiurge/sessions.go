package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/urfave/cli/v2"

	"demiurge.dev/host/providers"
	"demiurge.dev/host/runtime"
	"demiurge.dev/host/toolhost"
)

func sessionsCommand() *cli.Command {
	jsonFlag := &cli.BoolFlag{Name: "json", Usage: "print JSON"}
	return &cli.Command{
		Name:  "sessions",
		Usage: "conversations: list, show and resume them",
		Subcommands: []*cli.Command{
			{Name: "list", Usage: "your sessions that hold a conversation, oldest first", Flags: []cli.Flag{jsonFlag}, Action: sessionsList},
			{Name: "show", Usage: "print a session's conversation", ArgsUsage: "ID", Flags: []cli.Flag{jsonFlag}, Action: sessionsShow},
			{Name: "resume", Usage: "continue a session's conversation with a new prompt (headless, like run)", ArgsUsage: "ID PROMPT",
				Flags:  []cli.Flag{&cli.BoolFlag{Name: "json", Usage: "print one JSON object per event"}},
				Action: sessionsResume},
		},
	}
}

// sessionEntry is one line of sessions list.
type sessionEntry struct {
	ID       string    `json:"id"`
	Created  time.Time `json:"created"`
	Messages uint64    `json:"messages"`
	Title    string    `json:"title"`
}

func sessionsList(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("sessions list takes no arguments")
	}
	entries, err := conversationsOf(c)
	if err != nil {
		return err
	}
	oldestFirst(entries, func(e sessionEntry) time.Time { return e.Created }, func(e sessionEntry) string { return e.ID })
	if c.Bool("json") {
		return writeJSON(c.App.Writer, entries)
	}
	if len(entries) == 0 {
		fmt.Fprintln(c.App.Writer, "no conversations yet; 'demiurge run PROMPT' starts one")
		return nil
	}
	tw := tabwriter.NewWriter(c.App.Writer, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "SESSION\tSTARTED\tMESSAGES\tFIRST PROMPT")
	for _, e := range entries {
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\n", e.ID, e.Created.Local().Format(time.DateTime), e.Messages, printable(e.Title, 200))
	}
	return tw.Flush()
}

// conversations are the principal's sessions that hold messages, oldest
// first.
func conversations(h *toolhost.Host) ([]sessionEntry, error) {
	recs, err := h.Sessions()
	if err != nil {
		return nil, err
	}
	store, err := h.Store()
	if err != nil {
		return nil, err
	}
	entries := []sessionEntry{}
	for _, rec := range recs {
		// A one-shot tools call records a session but says nothing: only
		// conversations are listed.
		n, err := store.MessageCount(rec.ID)
		if err != nil {
			return nil, err
		}
		if n == 0 {
			continue
		}
		first, _, err := store.FirstMessage(rec.ID)
		if err != nil {
			return nil, err
		}
		title := printable(strings.Join(strings.Fields(first.Text), " "), 60)
		entries = append(entries, sessionEntry{ID: rec.ID, Created: rec.Created, Messages: n, Title: title})
	}
	return entries, nil
}

// sessionID reads a session argument: "last" is the newest conversation.
func sessionID(h *toolhost.Host, arg string) (string, error) {
	if arg != "last" {
		return arg, nil
	}
	entries, err := conversations(h)
	if err != nil {
		return "", err
	}
	if len(entries) == 0 {
		return "", fmt.Errorf("no conversations yet; 'demiurge run PROMPT' starts one")
	}
	return entries[len(entries)-1].ID, nil
}

// ownedMessages are session id's messages if the session is the
// principal's; a session of another principal answers like a missing one.
func ownedMessages(h *toolhost.Host, id string) ([]runtime.MessageRecord, error) {
	store, err := h.Store()
	if err != nil {
		return nil, err
	}
	if _, err := store.Session(h.Authority().Principal, id); err != nil {
		if errors.Is(err, runtime.ErrNoSession) {
			return nil, fmt.Errorf("no session %s of yours; 'demiurge sessions list' shows them", printable(id, 80))
		}
		return nil, err
	}
	return store.Messages(id, 0)
}

func sessionsShow(c *cli.Context) error {
	if c.NArg() != 1 {
		return usagef("usage: demiurge sessions show ID")
	}
	msgs, err := conversationOf(c, c.Args().First())
	if err != nil {
		return err
	}
	if c.Bool("json") {
		if msgs == nil {
			msgs = []runtime.MessageRecord{}
		}
		return writeJSON(c.App.Writer, msgs)
	}
	return printConversation(c.App.Writer, msgs)
}

// printConversation prints stored model views: what was said, the calls
// and a line of each result. They were redacted before they were stored.
func printConversation(w io.Writer, msgs []runtime.MessageRecord) error {
	for _, m := range msgs {
		switch {
		case m.Summary:
			fmt.Fprintf(w, "[summary of messages through %d]\n%s\n", m.Covers, printable(m.Text, 1<<20))
		case m.Role == string(providers.RoleUser):
			fmt.Fprintf(w, "you: %s\n", printable(m.Text, 1<<20))
		case m.Role == string(providers.RoleAssistant):
			if m.Text != "" {
				fmt.Fprintf(w, "agent: %s\n", printable(m.Text, 1<<20))
			}
			var calls []providers.ToolCall
			_ = json.Unmarshal(m.ToolCalls, &calls)
			for _, tc := range calls {
				fmt.Fprintf(w, "→ %s %s\n", tc.Name, printable(tc.Args, 200))
			}
		case m.Role == string(providers.RoleTool):
			var results []providers.ToolResult
			_ = json.Unmarshal(m.ToolResults, &results)
			for _, r := range results {
				mark := "✓"
				if r.IsError || commandFailed(r.Content) {
					mark = "✗"
				}
				line, _, _ := strings.Cut(r.Content, "\n")
				fmt.Fprintf(w, "  %s %s: %s (%d bytes)\n", mark, r.Name, printable(line, 120), len(r.Content))
			}
		}
	}
	return nil
}

func sessionsResume(c *cli.Context) error {
	if c.NArg() < 1 {
		return usagef("usage: demiurge sessions resume ID PROMPT")
	}
	id := c.Args().First()
	prompt := strings.Join(c.Args().Tail(), " ")
	if strings.TrimSpace(prompt) == "" {
		return usagef("sessions resume needs a prompt after the id: demiurge sessions resume %s \"what next\"", printable(id, 80))
	}
	return runTurn(c, id, prompt)
}
