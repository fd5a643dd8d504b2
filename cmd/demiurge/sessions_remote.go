package main

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/urfave/cli/v2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/cmd/internal/frontview"
	"demiurge.dev/host/hostd"
	"demiurge.dev/host/runtime"
	"demiurge.dev/shared/hostv1"
)

// conversationsOf are the operator's conversations: from the running host
// (started if none runs), or in process with DEMIURGE_HOST=off.
func conversationsOf(c *cli.Context) ([]sessionEntry, error) {
	if !hostEnabled() {
		h, err := openHost(c, nil)
		if err != nil {
			return nil, err
		}
		defer h.Close()
		return conversations(h)
	}
	var list []hostd.Conversation
	if err := askConversations(c, "", &list); err != nil {
		return nil, err
	}
	entries := []sessionEntry{}
	for _, cv := range list {
		entries = append(entries, sessionEntry{ID: cv.ID, Created: cv.Created, Messages: cv.Messages, Title: frontview.SessionTitle(cv.FirstText)})
	}
	return entries, nil
}

// conversationOf is one conversation's messages ("last": the newest).
func conversationOf(c *cli.Context, arg string) ([]runtime.MessageRecord, error) {
	if !hostEnabled() {
		h, err := openHost(c, nil)
		if err != nil {
			return nil, err
		}
		defer h.Close()
		id, err := sessionID(h, arg)
		if err != nil {
			return nil, err
		}
		return ownedMessages(h, id)
	}
	id := arg
	if id == "last" {
		entries, err := conversationsOf(c)
		if err != nil {
			return nil, err
		}
		if len(entries) == 0 {
			return nil, errors.New(frontview.NoConversations)
		}
		id = entries[len(entries)-1].ID
	}
	var msgs []runtime.MessageRecord
	err := askConversations(c, id, &msgs)
	if status.Code(err) == codes.NotFound {
		return nil, fmt.Errorf("no session %s of yours; 'demiurge sessions list' shows them", printable(id, 80))
	}
	return msgs, err
}

func askConversations(c *cli.Context, show string, into any) error {
	cl, err := connectHost(c)
	if err != nil {
		return err
	}
	defer cl.Close()
	if err := cl.Needs(2, "sessions"); err != nil {
		return err
	}
	res, err := cl.Conversations(c.Context, &hostv1.ConversationsRequest{Show: show})
	if err != nil {
		if status.Code(err) == codes.NotFound {
			return err
		}
		return fmt.Errorf("the host (pid %d): %s", cl.PID, status.Convert(err).Message())
	}
	if err := json.Unmarshal(res.Json, into); err != nil {
		return fmt.Errorf("the host's sessions could not be read: %w", err)
	}
	return nil
}
