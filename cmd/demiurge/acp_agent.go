package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	acp "github.com/coder/acp-go-sdk"
	"github.com/urfave/cli/v2"

	"demiurge.dev/shared/hostv1"
)

// acpAgent answers the editor's ACP requests. Each ACP session is one
// session stream on the host (hostSession), so a turn, its calls and
// their approvals run where the terminal's do.
type acpAgent struct {
	c    *cli.Context
	out  *acpWriter
	conn *acp.AgentSideConnection

	mu       sync.Mutex
	sessions map[string]*acpSession
	// client is what the editor offers (initialize's clientCapabilities).
	client acp.ClientCapabilities
}

func newACPAgent(c *cli.Context, out *acpWriter) *acpAgent {
	return &acpAgent{c: c, out: out, sessions: map[string]*acpSession{}}
}

var _ acp.Agent = (*acpAgent)(nil)
var _ acp.AgentLoader = (*acpAgent)(nil)

func (a *acpAgent) Initialize(_ context.Context, p acp.InitializeRequest) (acp.InitializeResponse, error) {
	a.mu.Lock()
	a.client = p.ClientCapabilities
	a.mu.Unlock()
	title := "Demiurge"
	return acp.InitializeResponse{
		ProtocolVersion: acp.ProtocolVersionNumber,
		AgentInfo:       &acp.Implementation{Name: "demiurge", Title: &title, Version: version},
		AgentCapabilities: acp.AgentCapabilities{
			LoadSession: true,
			// Embedded resources (an editor's selection, an open file)
			// become part of the prompt's text; images and audio are
			// not carried by a Demiurge turn.
			PromptCapabilities: acp.PromptCapabilities{EmbeddedContext: true},
			// session/list, session/resume and session/close (acp_sessions.go).
			SessionCapabilities: acp.SessionCapabilities{List: &acp.SessionListCapabilities{},
				Resume: &acp.SessionResumeCapabilities{}, Close: &acp.SessionCloseCapabilities{}},
		},
		AuthMethods: []acp.AuthMethod{},
	}, nil
}

func (a *acpAgent) Authenticate(context.Context, acp.AuthenticateRequest) (acp.AuthenticateResponse, error) {
	// The model key comes from this process's environment, as for every
	// front end; there is nothing to log in to.
	return acp.AuthenticateResponse{}, nil
}

func (a *acpAgent) NewSession(ctx context.Context, p acp.NewSessionRequest) (acp.NewSessionResponse, error) {
	s, err := a.open(ctx, "", p.Cwd, len(p.McpServers))
	if err != nil {
		return acp.NewSessionResponse{}, err
	}
	return acp.NewSessionResponse{SessionId: acp.SessionId(s.id())}, nil
}

// LoadSession continues a recorded Demiurge session of the principal:
// its conversation is sent to the editor again, then the session is
// live. A session that is not the principal's is answered like a missing
// one.
func (a *acpAgent) LoadSession(ctx context.Context, p acp.LoadSessionRequest) (acp.LoadSessionResponse, error) {
	id := string(p.SessionId)
	if id == "" || id == "last" || strings.ContainsAny(id, " \t\n/") {
		return acp.LoadSessionResponse{}, acp.NewInvalidParams(map[string]any{"error": "sessionId must name a Demiurge session"})
	}
	msgs, err := conversationOf(a.c, id)
	if err != nil {
		return acp.LoadSessionResponse{}, acp.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	if len(msgs) == 0 {
		return acp.LoadSessionResponse{}, acp.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no session %s of yours with a conversation", printable(id, 80))})
	}
	a.mu.Lock()
	_, live := a.sessions[id]
	a.mu.Unlock()
	if live {
		return acp.LoadSessionResponse{}, acp.NewInvalidParams(map[string]any{"error": fmt.Sprintf("session %s is open on this connection already", printable(id, 80))})
	}
	s, err := a.open(ctx, id, p.Cwd, len(p.McpServers))
	if err != nil {
		return acp.LoadSessionResponse{}, err
	}
	if err := s.replay(ctx, msgs); err != nil {
		return acp.LoadSessionResponse{}, err
	}
	return acp.LoadSessionResponse{}, nil
}

// open opens a session stream on the host (resume: a recorded session)
// for an editor whose project is cwd.
func (a *acpAgent) open(ctx context.Context, resume, cwd string, mcpServers int) (*acpSession, error) {
	if !filepath.IsAbs(cwd) {
		return nil, acp.NewInvalidParams(map[string]any{"error": "cwd must be an absolute path"})
	}
	if fi, err := os.Stat(cwd); err != nil || !fi.IsDir() {
		return nil, acp.NewInvalidParams(map[string]any{"error": fmt.Sprintf("cwd %s must be an existing directory", printable(cwd, 200))})
	}
	s := &acpSession{agent: a}
	hs, err := openHostView(a.c, resume, s, &acpApprover{s: s}, a.editorOffers())
	if err != nil {
		return nil, acp.NewInternalError(map[string]any{"error": err.Error()})
	}
	s.hs = hs
	st, err := hs.Client.Status(ctx, &hostv1.StatusRequest{})
	if err != nil {
		hs.Close()
		return nil, acp.NewInternalError(map[string]any{"error": err.Error()})
	}
	s.workspace = st.Workspace
	if rel, err := filepath.Rel(st.Workspace, filepath.Clean(cwd)); err != nil || rel == ".." || strings.HasPrefix(rel, "../") {
		hs.Close()
		return nil, acp.NewInvalidParams(map[string]any{"error": fmt.Sprintf(
			"the editor's project %s is outside this demiurge's workspace %s; start demiurge acp with --workspace %s", cwd, st.Workspace, cwd)})
	}
	if hs.Model == "" {
		hs.Close()
		return nil, acp.NewInternalError(map[string]any{"error": noModelHelp})
	}
	a.mu.Lock()
	a.sessions[hs.Session] = s
	a.mu.Unlock()
	if mcpServers > 0 {
		// The core's MCP declarations are the closed world of servers
		// (connect approvals, pins, URL policy); an editor's list is not.
		s.notice(ctx, fmt.Sprintf("the editor's %d MCP server(s) are not connected: Demiurge connects the servers its core declares (demiurge mcp add)", mcpServers))
	}
	s.offerCommands(ctx)
	return s, nil
}

func (a *acpAgent) session(id acp.SessionId) (*acpSession, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	s, ok := a.sessions[string(id)]
	if !ok {
		return nil, acp.NewInvalidParams(map[string]any{"error": fmt.Sprintf("no session %s on this connection; session/new or session/load opens one", printable(string(id), 80))})
	}
	return s, nil
}

func (a *acpAgent) Prompt(ctx context.Context, p acp.PromptRequest) (acp.PromptResponse, error) {
	s, err := a.session(p.SessionId)
	if err != nil {
		return acp.PromptResponse{}, err
	}
	return s.prompt(ctx, p.Prompt)
}

// Cancel is /stop: every prompt of the session in hand (the running one
// and any waiting for it) has its context cancelled, which sends the host
// an Interrupt; the prompt then answers "cancelled". The SDK's own cancel
// is not enough: it keeps one prompt per session, and a prompt that ends
// forgets the one that came while it ran, which then ran on unstoppable.
func (a *acpAgent) Cancel(_ context.Context, p acp.CancelNotification) error {
	s, err := a.session(p.SessionId)
	if err != nil {
		return err
	}
	s.cancelPrompts()
	return nil
}

func (a *acpAgent) SetSessionConfigOption(context.Context, acp.SetSessionConfigOptionRequest) (acp.SetSessionConfigOptionResponse, error) {
	return acp.SetSessionConfigOptionResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetConfigOption)
}

func (a *acpAgent) SetSessionMode(context.Context, acp.SetSessionModeRequest) (acp.SetSessionModeResponse, error) {
	return acp.SetSessionModeResponse{}, acp.NewMethodNotFound(acp.AgentMethodSessionSetMode)
}

// closeAll ends every session stream (the editor went away).
func (a *acpAgent) closeAll() {
	a.mu.Lock()
	list := make([]*acpSession, 0, len(a.sessions))
	for _, s := range a.sessions {
		list = append(list, s)
	}
	a.sessions = map[string]*acpSession{}
	a.mu.Unlock()
	for _, s := range list {
		s.hs.Close()
	}
}
