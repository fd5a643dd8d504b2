package main

import (
	"errors"
	"fmt"
	"strings"

	"github.com/urfave/cli/v2"

	"demiurge.dev/cmd/internal/frontview"
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

// sessionEntry is one line of sessions list (the small front end's too).
type sessionEntry = frontview.SessionEntry

func sessionsList(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("sessions list takes no arguments")
	}
	entries, err := conversationsOf(c)
	if err != nil {
		return err
	}
	return frontview.Sessions(c.App.Writer, entries, c.Bool("json"))
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
		if errors.Is(err, runtime.ErrBadRecord) {
			first.Text, err = runtime.UnreadableTitle, nil // its own session only
		}
		if err != nil {
			return nil, err
		}
		entries = append(entries, sessionEntry{ID: rec.ID, Created: rec.Created, Messages: n, Title: frontview.SessionTitle(first.Text)})
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
		return "", errors.New(frontview.NoConversations)
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
	return frontview.Conversation(c.App.Writer, msgs, c.Bool("json"))
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
