package main

import (
	"context"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"sync"

	acp "github.com/coder/acp-go-sdk"

	"demiurge.dev/host/providers"
	"demiurge.dev/host/redact"
	"demiurge.dev/host/runtime"
	"demiurge.dev/host/turn"
	"demiurge.dev/shared/hostv1"
)

// acpSession is one ACP session: a session stream on the host whose
// events become the editor's session/update notifications.
type acpSession struct {
	agent     *acpAgent
	hs        *hostSession
	workspace string

	// turnMu runs one prompt at a time.
	turnMu sync.Mutex

	mu sync.Mutex
	// turnCtx is the running prompt's context (nil between prompts): a
	// question the turn asks ends with it.
	turnCtx context.Context
	// status is the last turn_end's status.
	status string
	// prompts are the cancels of this session's prompts in hand, running
	// or waiting for turnMu: session/cancel ends them all (the SDK's own
	// cancel keeps one per session, and a prompt that ends forgets the
	// next one's).
	prompts map[*context.CancelFunc]struct{}
}

// held registers a prompt in hand; the returned func forgets it.
func (s *acpSession) held(cancel context.CancelFunc) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.prompts == nil {
		s.prompts = map[*context.CancelFunc]struct{}{}
	}
	k := &cancel
	s.prompts[k] = struct{}{}
	return func() {
		s.mu.Lock()
		delete(s.prompts, k)
		s.mu.Unlock()
		cancel()
	}
}

// cancelPrompts is session/cancel: every prompt in hand ends.
func (s *acpSession) cancelPrompts() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for k := range s.prompts {
		(*k)()
	}
}

func (s *acpSession) id() string { return s.hs.Session }

// send is one session/update; the connection's end makes it a no-op.
func (s *acpSession) send(ctx context.Context, u acp.SessionUpdate) {
	if s.agent.conn == nil {
		return
	}
	_ = s.agent.conn.SessionUpdate(ctx, acp.SessionNotification{SessionId: acp.SessionId(s.id()), Update: u})
}

func (s *acpSession) notice(ctx context.Context, text string) {
	s.send(ctx, acp.UpdateAgentThoughtText("[demiurge] "+text+"\n"))
}

// prompt runs one Demiurge turn (or one of the host's slash commands).
func (s *acpSession) prompt(ctx context.Context, blocks []acp.ContentBlock) (acp.PromptResponse, error) {
	text, err := promptText(blocks)
	if err != nil {
		return acp.PromptResponse{}, acp.NewInvalidParams(map[string]any{"error": err.Error()})
	}
	ctx, cancel := context.WithCancel(ctx)
	defer s.held(cancel)()
	s.turnMu.Lock()
	defer s.turnMu.Unlock()
	if ctx.Err() != nil {
		// cancelled while another prompt ran: nothing of it runs
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	}
	if strings.HasPrefix(text, "/") {
		s.send(ctx, acp.UpdateAgentMessageText(s.command(ctx, text)))
		return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
	}
	s.mu.Lock()
	s.turnCtx, s.status = ctx, ""
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		s.turnCtx = nil
		s.mu.Unlock()
	}()
	ended, err := s.hs.RunTurn(ctx, &hostv1.RunTurn{Prompt: text, Chat: true})
	if err != nil && ctx.Err() != nil {
		// session/close ended the stream under the cancelled turn
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	}
	if err != nil {
		return acp.PromptResponse{}, acp.NewInternalError(map[string]any{"error": err.Error()})
	}
	s.mu.Lock()
	status := s.status
	s.mu.Unlock()
	switch {
	case ctx.Err() != nil || ended.ExitCode == exitInterrupted || status == "cancelled":
		return acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	case status == "step_cap":
		return acp.PromptResponse{StopReason: acp.StopReasonMaxTurnRequests}, nil
	case ended.ExitCode != 0:
		return acp.PromptResponse{}, acp.NewInternalError(map[string]any{"error": printable(ended.Error, 2000)})
	}
	return acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

// contextTag is a context element's tag in an embedded file's text: the
// file's words (a cloned project's, a page's) must not end the element
// and go on as the operator's own.
var contextTag = regexp.MustCompile(`(?i)<(\s*/?\s*context)`)

// promptText is the turn's prompt: the text blocks, and what the editor
// attached (an embedded file's text, marked with its URI; a link as its
// URI).
func promptText(blocks []acp.ContentBlock) (string, error) {
	var b strings.Builder
	for _, c := range blocks {
		switch {
		case c.Text != nil:
			b.WriteString(c.Text.Text)
		case c.ResourceLink != nil:
			fmt.Fprintf(&b, "@%s", c.ResourceLink.Uri)
		case c.Resource != nil && c.Resource.Resource.TextResourceContents != nil:
			r := c.Resource.Resource.TextResourceContents
			fmt.Fprintf(&b, "\n<context uri=%q>\n%s\n</context>\n", r.Uri, contextTag.ReplaceAllString(r.Text, "&lt;$1"))
		default:
			return "", fmt.Errorf("a prompt holds text, resource links and embedded text resources; images, audio and binary resources are not carried by a Demiurge turn")
		}
	}
	if strings.TrimSpace(b.String()) == "" {
		return "", fmt.Errorf("the prompt is empty")
	}
	return b.String(), nil
}

// Show turns the host's turn events into session updates.
func (s *acpSession) Show(ev turn.Event) {
	ctx := context.Background()
	switch ev.Type {
	case turn.EventTextDelta:
		s.send(ctx, acp.UpdateAgentMessageText(ev.Text))
	case turn.EventToolCall:
		s.send(ctx, toolCallStart(ev, s.workspace))
	case turn.EventApproval:
		if ev.Decision == "auto" || ev.Decision == "allowed" {
			s.send(ctx, acp.UpdateToolCall(acp.ToolCallId(ev.CallID), acp.WithUpdateStatus(acp.ToolCallStatusInProgress)))
		}
	case turn.EventToolResult:
		s.send(ctx, toolCallEnd(ev))
	case turn.EventNotice, turn.EventRetry:
		s.notice(ctx, ev.Text)
	case turn.EventTurnEnd:
		s.mu.Lock()
		s.status = ev.Status
		s.mu.Unlock()
		if ev.Error != "" && ev.Status != "done" {
			s.notice(ctx, "the turn ended: "+ev.Error)
		}
	}
}

// ShowChild shows a child agent's calls as thoughts: its text is never
// mixed into the answer.
func (s *acpSession) ShowChild(ev turn.Event) {
	if ev.Type == turn.EventToolCall {
		s.notice(context.Background(), fmt.Sprintf("child %s: %s", ev.Agent, firstLine(ev.Card)))
	}
}

// A running call's output is in its result; the editor shows that.
func (s *acpSession) Output(string, string, string)    {}
func (s *acpSession) Progress(string, string, float64) {}
func (s *acpSession) Warn(text string)                 { s.notice(context.Background(), strings.TrimSpace(text)) }
func (s *acpSession) Opened(string)                    {}

// replay sends a loaded session's conversation to the editor.
func (s *acpSession) replay(ctx context.Context, msgs []runtime.MessageRecord) error {
	for _, m := range msgs {
		switch {
		case m.Summary:
			s.send(ctx, acp.UpdateAgentThoughtText("[summary of earlier messages]\n"+m.Text))
		case m.Role == string(providers.RoleUser):
			s.send(ctx, acp.UpdateUserMessageText(m.Text))
		case m.Role == string(providers.RoleAssistant):
			if m.Text != "" {
				s.send(ctx, acp.UpdateAgentMessageText(m.Text))
			}
			var calls []providers.ToolCall
			_ = json.Unmarshal(m.ToolCalls, &calls)
			for _, tc := range calls {
				// The stored arguments are the model's, raw: redacted as
				// a live tool_call event's are (its secret-named fields,
				// the secrets found in it, credential formats).
				var args map[string]any
				if json.Unmarshal([]byte(tc.Args), &args) == nil && args != nil {
					args = redact.Args(args, 300)
				}
				s.send(ctx, toolCallStart(turn.Event{CallID: tc.ID, Tool: tc.Name, Card: tc.Name, EventDetail: turn.EventDetail{Args: args}}, s.workspace))
			}
		case m.Role == string(providers.RoleTool):
			var results []providers.ToolResult
			_ = json.Unmarshal(m.ToolResults, &results)
			for _, r := range results {
				st := acp.ToolCallStatusCompleted
				if r.IsError {
					st = acp.ToolCallStatusFailed
				}
				s.send(ctx, acp.UpdateToolCall(acp.ToolCallId(r.CallID), acp.WithUpdateStatus(st),
					acp.WithUpdateContent([]acp.ToolCallContent{acp.ToolContent(acp.TextBlock(r.Content))})))
			}
		}
	}
	return nil
}

// firstLine is the first line of s, inert (acpInert), as a title.
func firstLine(s string) string {
	l, _, _ := strings.Cut(strings.TrimSpace(s), "\n")
	return acpInert(l, 200)
}

// acpInert is text a model or a server wrote (a tool name, a question)
// as the editor shows it in a title, an option or a card: termtext's
// closed world (graphic characters, newline and tab; every control, bidi,
// format and invisible character, the Unicode tag characters that spell
// ASCII the editor does not show among them, replaced with '?'), cut
// after limit bytes.
func acpInert(s string, limit int) string { return printable(s, limit) }
