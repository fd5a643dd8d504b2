package main

import (
	"bytes"
	"context"
	"encoding/json"

	"demiurge.dev/cmd/internal/frontargs"
	"demiurge.dev/cmd/internal/frontview"
	"demiurge.dev/host/hostd/hostclient"
	"demiurge.dev/host/runtime"
	"demiurge.dev/shared/hostv1"
)

// sessions is `demiurge sessions list` and `sessions show ID` through
// the running host's Conversations call, as the full CLI's
// conversationsOf and conversationOf ask it, printed with the same code
// (frontview). Both only read: whatever goes wrong before printing (no
// host of these options, an old host, no conversation, an unknown or
// another principal's session) hands over, and the full CLI asks again
// or says why.
func sessions(ctx context.Context, req frontargs.Request, state string) (code int, handed bool) {
	cl, ok := dialNeeding(ctx, req, state, 2, "sessions")
	if !ok {
		return 0, true
	}
	defer cl.Close()
	ask := func(show string, into any) bool {
		res, err := cl.Conversations(ctx, &hostv1.ConversationsRequest{Show: show})
		return err == nil && json.Unmarshal(res.Json, into) == nil
	}
	var list []hostclient.Conversation
	if (req.Command == "sessions list" || req.Session == "last") && !ask("", &list) {
		return 0, true
	}
	var out bytes.Buffer
	switch req.Command {
	case "sessions list":
		entries := []frontview.SessionEntry{}
		for _, cv := range list {
			entries = append(entries, frontview.SessionEntry{ID: cv.ID, Created: cv.Created, Messages: cv.Messages, Title: frontview.SessionTitle(cv.FirstText)})
		}
		if frontview.Sessions(&out, entries, req.JSON) != nil {
			return 0, true
		}
	case "sessions show":
		id := req.Session
		if id == "last" {
			// The host's last, unsorted, as the full CLI takes it.
			if len(list) == 0 {
				return 0, true
			}
			id = list[len(list)-1].ID
		}
		var msgs []runtime.MessageRecord
		if !ask(id, &msgs) || frontview.Conversation(&out, msgs, req.JSON) != nil {
			return 0, true
		}
	default:
		return 0, true
	}
	return printed(out.Bytes(), nil, 0)
}
