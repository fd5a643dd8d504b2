package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"time"

	acp "github.com/coder/acp-go-sdk"

	"demiurge.dev/shared/hostv1"
)

// ListSessions is session/list: the principal's recorded Demiurge sessions
// (`sessions list`), newest first as that lists them, each with the host's
// workspace as its cwd (a Demiurge session belongs to the host's
// workspace). A cwd outside the workspace has none.
func (a *acpAgent) ListSessions(ctx context.Context, p acp.ListSessionsRequest) (acp.ListSessionsResponse, error) {
	if p.Cursor != nil && *p.Cursor != "" {
		return acp.ListSessionsResponse{}, acp.NewInvalidParams(map[string]any{"error": "there is no next page: every session comes in the first answer"})
	}
	ws, err := a.workspace(ctx)
	if err != nil {
		return acp.ListSessionsResponse{}, acp.NewInternalError(map[string]any{"error": err.Error()})
	}
	out := acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}
	if p.Cwd != nil && !insideDir(ws, *p.Cwd) {
		return out, nil
	}
	entries, err := conversationsOf(a.c)
	if err != nil {
		return acp.ListSessionsResponse{}, acp.NewInternalError(map[string]any{"error": err.Error()})
	}
	for _, e := range entries {
		if e.Messages == 0 {
			continue
		}
		title := acpInert(e.Title, 120)
		at := e.Created.UTC().Format(time.RFC3339)
		out.Sessions = append(out.Sessions, acp.SessionInfo{SessionId: acp.SessionId(e.ID), Cwd: ws, Title: &title, UpdatedAt: &at})
	}
	return out, nil
}

// ResumeSession is session/resume: session/load without the replay (the
// editor keeps the conversation it showed).
func (a *acpAgent) ResumeSession(ctx context.Context, p acp.ResumeSessionRequest) (acp.ResumeSessionResponse, error) {
	if err := a.checkRecorded(string(p.SessionId)); err != nil {
		return acp.ResumeSessionResponse{}, err
	}
	if _, err := a.open(ctx, string(p.SessionId), p.Cwd, len(p.McpServers)); err != nil {
		return acp.ResumeSessionResponse{}, err
	}
	return acp.ResumeSessionResponse{}, nil
}

// CloseSession is session/close: the session's stream on the host ends
// (a turn in hand is stopped); the recorded session stays, to load again.
func (a *acpAgent) CloseSession(_ context.Context, p acp.CloseSessionRequest) (acp.CloseSessionResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return acp.CloseSessionResponse{}, err
	}
	a.mu.Lock()
	delete(a.sessions, s.id())
	a.mu.Unlock()
	// A turn in hand stops as session/cancel stops it (its prompt
	// answers cancelled, a question in hand is given up), then the
	// stream ends.
	s.cancelPrompts()
	s.hs.Close()
	return acp.CloseSessionResponse{}, nil
}

// checkRecorded: id names a recorded session of the principal with a
// conversation, not open on this connection.
func (a *acpAgent) checkRecorded(id string) error {
	if id == "" || id == "last" || strings.ContainsAny(id, " \t\n/") {
		return acp.NewInvalidParams(map[string]any{"error": "sessionId must name a Demiurge session"})
	}
	msgs, err := conversationOf(a.c, id)
	if err != nil {
		return acp.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	if len(msgs) == 0 {
		return acp.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no session %s of yours with a conversation", printable(id, 80))})
	}
	a.mu.Lock()
	_, live := a.sessions[id]
	a.mu.Unlock()
	if live {
		return acp.NewInvalidParams(map[string]any{"error": fmt.Sprintf("session %s is open on this connection already", printable(id, 80))})
	}
	return nil
}

// workspace is the host's workspace.
func (a *acpAgent) workspace(ctx context.Context) (string, error) {
	cl, err := connectHost(a.c)
	if err != nil {
		return "", err
	}
	defer cl.Close()
	st, err := cl.Status(ctx, &hostv1.StatusRequest{})
	if err != nil {
		return "", err
	}
	return st.Workspace, nil
}

// insideDir: path is absolute, and dir or under it.
func insideDir(dir, path string) bool {
	return filepath.IsAbs(path) && inside(dir, path)
}
