package main

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"sync/atomic"

	acp "github.com/coder/acp-go-sdk"

	"demiurge.dev/host/approval"
)

// acpApprover asks the editor the host's approval questions with
// session/request_permission. The options are the card's: allow once,
// allow always (this session: a session allow, which the host scopes to
// this session and fingerprint, only where the card offers it), reject,
// and never in this session where the card offers that. Only the
// editor's answer to this very request, naming an option offered,
// allows; anything else (cancelled, an unknown option, the connection
// gone) denies.
type acpApprover struct {
	s *acpSession
}

const (
	acpAllowOnce    = "allow_once"
	acpAllowSession = "allow_always_session"
	acpReject       = "reject"
	acpRejectAlways = "reject_always_session"
)

func (p *acpApprover) Name() string { return "acp" }

func (p *acpApprover) Ask(ctx context.Context, req approval.Request) (approval.Answer, error) {
	opts := []acp.PermissionOption{{OptionId: acpAllowOnce, Name: "Allow once", Kind: acp.PermissionOptionKindAllowOnce}}
	if req.SessionAllowable {
		opts = append(opts, acp.PermissionOption{OptionId: acpAllowSession, Name: "Allow always (this session)", Kind: acp.PermissionOptionKindAllowAlways})
	}
	opts = append(opts, acp.PermissionOption{OptionId: acpReject, Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce})
	if req.SessionDeniable {
		opts = append(opts, acp.PermissionOption{OptionId: acpRejectAlways, Name: "Never in this session", Kind: acp.PermissionOptionKindRejectAlways})
	}
	id := req.CallID
	if id == "" {
		id = "approval-" + strconv.FormatInt(acpQuestions.Add(1), 10)
	}
	title := "approve " + acpInert(req.Tool, 200) + "?"
	kind := acpToolKind(req.Tool)
	status := acp.ToolCallStatusPending
	card := approval.CardText(req)
	tc := acp.ToolCallUpdate{ToolCallId: acp.ToolCallId(id), Title: &title, Kind: &kind, Status: &status,
		Content: []acp.ToolCallContent{acp.ToolContent(acp.TextBlock(card))}}
	if req.EditFunc != nil {
		if d := acpDiff(req.EditFunc()); d != nil {
			tc.Content = append(tc.Content, *d)
		}
	}
	for _, s := range req.ShownSubjects() {
		if s.Kind == "path" && s.Resolved != "" {
			tc.Locations = append(tc.Locations, acp.ToolCallLocation{Path: s.Resolved})
		}
	}
	opt, err := p.s.ask(ctx, acp.RequestPermissionRequest{SessionId: acp.SessionId(p.s.id()), ToolCall: tc, Options: opts})
	if err != nil {
		return approval.Deny, err
	}
	switch opt {
	case acpAllowOnce:
		return approval.AllowOnce, nil
	case acpAllowSession:
		if req.SessionAllowable {
			return approval.AllowSession, nil
		}
	case acpRejectAlways:
		if req.SessionDeniable {
			return approval.DenySession, nil
		}
	}
	return approval.Deny, nil
}

var acpQuestions atomic.Int64

// ask sends one permission request and returns the option chosen ("":
// cancelled). It ends with the running prompt (session/cancel) as well
// as with ctx.
func (s *acpSession) ask(ctx context.Context, req acp.RequestPermissionRequest) (string, error) {
	if s.agent.conn == nil {
		return "", errors.New("no editor connected")
	}
	ctx, cancel := s.withTurn(ctx)
	defer cancel()
	resp, err := s.agent.conn.RequestPermission(ctx, req)
	if err != nil {
		return "", fmt.Errorf("the editor did not answer: %w", err)
	}
	if resp.Outcome.Selected == nil {
		return "", nil
	}
	chosen := string(resp.Outcome.Selected.OptionId)
	for _, o := range req.Options {
		if string(o.OptionId) == chosen {
			return chosen, nil
		}
	}
	return "", nil // an option that was not offered answers nothing
}

// withTurn returns ctx ended also by the running prompt's end
// (session/cancel), so a question to the editor does not outlive it.
func (s *acpSession) withTurn(ctx context.Context) (context.Context, context.CancelFunc) {
	s.mu.Lock()
	turnCtx := s.turnCtx
	s.mu.Unlock()
	ctx, cancel := context.WithCancel(ctx)
	if turnCtx == nil {
		return ctx, cancel
	}
	stop := context.AfterFunc(turnCtx, cancel)
	return ctx, func() { stop(); cancel() }
}

// Clarify asks the model's question in the editor. A question with
// choices is a permission request whose options are the choices (and
// "don't answer"); one without choices is a form elicitation where the
// client declared it (acp_elicit.go), else not answered (the model is
// told the operator gave no answer).
func (s *acpSession) Clarify(ctx context.Context, question string, choices []string) (string, bool, error) {
	if len(choices) == 0 {
		answer, ok := s.elicitText(ctx, question)
		return answer, ok, nil
	}
	opts := make([]acp.PermissionOption, 0, len(choices)+1)
	for i, c := range choices {
		opts = append(opts, acp.PermissionOption{OptionId: acp.PermissionOptionId("choice-" + strconv.Itoa(i+1)), Name: acpInert(c, 200), Kind: acp.PermissionOptionKindAllowOnce})
	}
	opts = append(opts, acp.PermissionOption{OptionId: "no-answer", Name: "Don't answer", Kind: acp.PermissionOptionKindRejectOnce})
	title := "the agent asks: " + acpInert(question, 500)
	kind := acp.ToolKindThink
	id := "clarify-" + strconv.FormatInt(acpQuestions.Add(1), 10)
	tc := acp.ToolCallUpdate{ToolCallId: acp.ToolCallId(id), Title: &title, Kind: &kind,
		Content: []acp.ToolCallContent{acp.ToolContent(acp.TextBlock(acpInert(question, 4000)))}}
	opt, err := s.ask(ctx, acp.RequestPermissionRequest{SessionId: acp.SessionId(s.id()), ToolCall: tc, Options: opts})
	if err != nil || opt == "" || opt == "no-answer" {
		return "", false, nil
	}
	n, _ := strconv.Atoi(opt[len("choice-"):])
	return choices[n-1], true, nil
}
