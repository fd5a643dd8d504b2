package mcpserve

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/mark3labs/mcp-go/mcp"
	"github.com/mark3labs/mcp-go/server"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/dispatch"
)

// The decisions an approval elicitation offers.
const (
	decisionOnce    = "allow_once"
	decisionSession = "allow_session"
	decisionDeny    = "deny"
	// elicitKey names the approval in a multi round-trip request.
	elicitKey = "demiurge_approval"
)

// errInputRequired is how the stateless revision's approver stops a call
// that needs an answer: the call is refused now, and the client retries it
// with the answer (a multi round-trip request).
var errInputRequired = errors.New("the approval was sent to the MCP client; the call runs when it is answered")

// approver asks the client a served call came from. It is made for one
// tools/call and used once.
type approver struct {
	s         *Server
	canElicit bool
	modern    bool
	// shared: the client's session is the one all stateless HTTP
	// clients share.
	shared bool
	// answer is the client's answer carried by a retried request, valid
	// for the one approval whose fingerprint it was asked for.
	answer *pendingApproval
	// asked is the approval a stateless client must answer.
	asked     *approval.Request
	sessionID string
	call      dispatch.ToolCall
}

func (s *Server) approverFor(ctx context.Context, sessionID string, call dispatch.ToolCall, mrtr mcp.MultiRoundTripParams) *approver {
	modern := server.IsModernRequest(ctx)
	a := &approver{s: s, canElicit: clientCanElicit(ctx), modern: modern, shared: modern && overHTTP(ctx), sessionID: sessionID, call: call}
	if mrtr.RequestState != "" {
		if p, ok := s.pending.take(mrtr.RequestState, sessionID, call); ok {
			if res := server.ElicitationResponse(mrtr.InputResponses, elicitKey); res != nil {
				p.answer = answerOf(res, p.sessionAllowable)
				a.answer = &p
			}
		}
	}
	return a
}

// provider is who the resolver asks: nobody (deny, with the message that
// names the --approve flag) when the client cannot answer.
func (a *approver) provider() approval.Provider {
	if !a.canElicit && a.answer == nil {
		return approval.DenyAll{Approve: ServeApproveHint}
	}
	return a
}

func (a *approver) Name() string { return "the MCP client" }

func (a *approver) Ask(ctx context.Context, req approval.Request) (approval.Answer, error) {
	if a.answer != nil {
		p := a.answer
		a.answer = nil
		if p.fingerprint == req.Fingerprint {
			return p.answer, nil
		}
	}
	if !a.canElicit {
		return approval.Deny, nil
	}
	if a.modern {
		r := req
		// Stateless HTTP clients share one session, so an allow for "the
		// session" would be one for every client: it is not offered.
		r.SessionAllowable = r.SessionAllowable && !a.shared
		a.asked = &r
		return approval.Deny, errInputRequired
	}
	ctx, cancel := context.WithTimeout(ctx, a.s.opts.ApprovalTimeout)
	defer cancel()
	res, err := a.s.mcp.RequestElicitation(ctx, mcp.ElicitationRequest{
		Request: mcp.Request{Method: string(mcp.MethodElicitationCreate)},
		Params:  elicitation(req),
	})
	if err != nil {
		return approval.Deny, fmt.Errorf("asking the MCP client: %w", err)
	}
	return answerOf(res, req.SessionAllowable), nil
}

// inputRequired is the multi round-trip result that asks a stateless
// client for the approval, or nil when none is outstanding.
func (a *approver) inputRequired() *mcp.CallToolResult {
	if a.asked == nil {
		return nil
	}
	state := a.s.pending.put(pendingApproval{
		sessionID: a.sessionID, call: callDigest(a.call),
		fingerprint: a.asked.Fingerprint, sessionAllowable: a.asked.SessionAllowable,
	})
	return server.NewInputRequestBuilder(state).Elicit(elicitKey, elicitation(*a.asked)).ToolResult()
}

// elicitation is the approval card as a form with one choice.
func elicitation(req approval.Request) mcp.ElicitationParams {
	choices := []any{decisionOnce, decisionDeny}
	if req.SessionAllowable {
		choices = []any{decisionOnce, decisionSession, decisionDeny}
	}
	return mcp.ElicitationParams{
		Mode:    mcp.ElicitationModeForm,
		Message: approval.CardText(req),
		RequestedSchema: map[string]any{
			"type": "object",
			"properties": map[string]any{
				"decision": map[string]any{
					"type": "string", "title": "Decision", "enum": choices,
					"description": "allow_once runs this call; allow_session also allows the same call for this session; deny refuses it",
				},
			},
			"required": []any{"decision"},
		},
	}
}

// answerOf reads the client's answer: only an accepted form with a
// decision it was offered allows; anything else denies.
func answerOf(res *mcp.ElicitationResult, sessionAllowable bool) approval.Answer {
	if res == nil || res.Action != mcp.ElicitationResponseActionAccept {
		return approval.Deny
	}
	content, _ := res.Content.(map[string]any)
	switch content["decision"] {
	case decisionOnce:
		return approval.AllowOnce
	case decisionSession:
		if sessionAllowable {
			return approval.AllowSession
		}
	}
	return approval.Deny
}

// pendingApproval is an approval a stateless client was asked for, bound
// to its session, tool, arguments and the approval's fingerprint, so an
// answer cannot be carried over to another call.
type pendingApproval struct {
	sessionID, call, fingerprint string
	sessionAllowable             bool
	expires                      time.Time
	answer                       approval.Answer
}

// maxPending bounds the approvals waiting for a stateless client.
const maxPending = 256

type pendingApprovals struct {
	mu sync.Mutex
	m  map[string]pendingApproval
}

func (p *pendingApprovals) put(a pendingApproval) string {
	var b [16]byte
	_, _ = rand.Read(b[:])
	state := hex.EncodeToString(b[:])
	a.expires = time.Now().Add(DefaultApprovalTimeout)
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.m == nil {
		p.m = map[string]pendingApproval{}
	}
	now := time.Now()
	for k, v := range p.m {
		if now.After(v.expires) || len(p.m) >= maxPending {
			delete(p.m, k)
		}
	}
	p.m[state] = a
	return state
}

// take removes and returns the approval state names, if it belongs to
// this session and call.
func (p *pendingApprovals) take(state, sessionID string, call dispatch.ToolCall) (pendingApproval, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	a, ok := p.m[state]
	if !ok {
		return pendingApproval{}, false
	}
	delete(p.m, state)
	if time.Now().After(a.expires) || a.sessionID != sessionID || a.call != callDigest(call) {
		return pendingApproval{}, false
	}
	return a, true
}

// callNotBound lists the fields of a call an answer is not bound to,
// each with why. Closed world: the answer carried by a retried request
// is for the call with every other field (one added later too) as it
// was asked (TestAnAnswerIsBoundToEveryFieldOfTheCall).
var callNotBound = map[string]string{
	"ID": "the client's id for the request: a retried request is a new one",
}

// callDigest hashes call without the fields callNotBound lists.
func callDigest(call dispatch.ToolCall) string {
	v := reflect.ValueOf(&call).Elem()
	for name := range callNotBound {
		v.FieldByName(name).SetZero()
	}
	b, err := json.Marshal(call)
	if err != nil {
		panic(err) // strings and bytes
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:])
}
