package hostd

import (
	"context"
	"encoding/json"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/host/hostd/hostclient"
	"demiurge.dev/host/runtime"
	"demiurge.dev/shared/hostv1"
)

// Conversation is one session that holds messages, as `sessions list`
// shows it (the front end makes the title); its type is the front ends'.
type Conversation = hostclient.Conversation

// Conversations is `demiurge sessions list|show` while the host holds
// the store: the named principal's sessions only; another principal's
// session answers like a missing one.
func (s *Server) Conversations(_ context.Context, req *hostv1.ConversationsRequest) (*hostv1.ConversationsResponse, error) {
	store, err := s.h.Store()
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	principal := s.principal(req.Principal)
	var out any
	if req.Show != "" {
		if _, err := store.Session(principal, req.Show); err != nil {
			if errors.Is(err, runtime.ErrNoSession) {
				return nil, status.Error(codes.NotFound, "no such session of yours")
			}
			return nil, status.Error(codes.Internal, err.Error())
		}
		msgs, err := store.Messages(req.Show, 0)
		if err != nil {
			return nil, status.Error(codes.Internal, err.Error())
		}
		out = msgs
	} else {
		recs, err := store.Sessions(principal)
		if err != nil {
			return nil, status.Error(codes.Internal, err.Error())
		}
		list := []Conversation{}
		for _, rec := range recs {
			n, err := store.MessageCount(rec.ID)
			if err != nil {
				return nil, status.Error(codes.Internal, err.Error())
			}
			if n == 0 {
				continue // a one-shot call's session says nothing
			}
			first, _, err := store.FirstMessage(rec.ID)
			if errors.Is(err, runtime.ErrBadRecord) {
				first.Text, err = runtime.UnreadableTitle, nil // its own session only
			}
			if err != nil {
				return nil, status.Error(codes.Internal, err.Error())
			}
			list = append(list, Conversation{ID: rec.ID, Created: rec.Created, Messages: n, FirstText: first.Text})
		}
		out = list
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &hostv1.ConversationsResponse{Json: b}, nil
}
