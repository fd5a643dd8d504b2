package mcp

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/mark3labs/mcp-go/mcp"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/core"
	"demiurge.dev/host/policy"
)

// ElicitTool is the name a server's form (elicitation/create) is asked and
// ruled under: "--approve allow:mcp_elicit__docs" accepts docs' forms with
// their declared defaults. It is operator-only: a rule in a core never
// accepts one.
func ElicitTool(server string) string { return "mcp_elicit__" + server }

// elicitor answers the elicitation/create requests of one connection. A
// server's form never reaches the model: the operator decides, through
// the same resolver as the connect gate, and the only answers are accept
// with the form's declared defaults, decline, or cancel.
type elicitor struct {
	c         *conn
	approvals *approval.Resolver
	authority policy.Authority
	// busy makes it one form at a time: a server asking for more while
	// the operator reads one is declined.
	busy atomic.Bool
	seq  atomic.Int64
	// report, when set, hears what became of each form.
	report func(server string, e Elicitation)
}

// Elicitation is what became of one form a server sent, for the audit
// trail: the operator learns of a form declined without asking anyone,
// and of the flag that would have let it be asked.
type Elicitation struct {
	Action string `json:"action"` // accept, decline or cancel
	Reason string `json:"reason"`
}

// answer reports what became of a form and returns the answer.
func (e *elicitor) answer(action mcp.ElicitationResponseAction, reason string) *mcp.ElicitationResult {
	if e.report != nil {
		e.report(e.c.plan.server.ID, Elicitation{Action: string(action), Reason: e.c.plan.clean(reason)})
	}
	return elicitAnswer(action)
}

// How long a form waits for the operator. mcp-go's HTTP transport sends
// the answer under a 30-second deadline of its own and drops it after, so
// a form from an HTTP server is answered (cancel) before that.
var (
	formWait     = 5 * time.Minute
	httpFormWait = 25 * time.Second
)

func (e *elicitor) wait() time.Duration {
	if e.c.plan.server.Transport == core.MCPHTTP {
		return httpFormWait
	}
	return formWait
}

func elicitAnswer(action mcp.ElicitationResponseAction) *mcp.ElicitationResult {
	return &mcp.ElicitationResult{ElicitationResponse: mcp.ElicitationResponse{Action: action}}
}

// Elicit declines, without asking anyone, a form outside a call, in URL
// mode, beyond the bounds (elicit_form.go) or with a required field that
// has no default; it asks the operator about any other.
func (e *elicitor) Elicit(ctx context.Context, req mcp.ElicitationRequest) (*mcp.ElicitationResult, error) {
	decline := mcp.ElicitationResponseActionDecline
	if mode := req.Params.Mode; mode != "" && mode != mcp.ElicitationModeForm {
		return e.answer(decline, "declined unasked: a form in "+clipRunes(string(mode), maxFormName)+" mode (only forms, accepted with their defaults)"), nil
	}
	// Only while the host waits on a call of this server.
	if e.c.calls.Load() == 0 {
		return e.answer(decline, "declined unasked: a form outside a call of this server"), nil
	}
	if !e.busy.CompareAndSwap(false, true) {
		return e.answer(decline, "declined unasked: a second form while one is open"), nil
	}
	defer e.busy.Store(false)
	f, err := parseForm(req.Params.RequestedSchema, e.c.plan.clean)
	if err != nil {
		return e.answer(decline, "declined unasked: "+err.Error()), nil
	}
	r, ok := e.request(req.Params.Message, f)
	if !ok {
		return e.answer(decline, "declined unasked: its approval card could not show every field"), nil
	}
	approvals := e.approvals
	if approvals == nil {
		approvals = &approval.Resolver{}
	}
	wait := e.wait()
	ctx, cancel := context.WithTimeout(ctx, wait)
	defer cancel()
	out, err := approvals.Resolve(ctx, r)
	switch {
	case err != nil && ctx.Err() == context.DeadlineExceeded:
		return e.answer(mcp.ElicitationResponseActionCancel, fmt.Sprintf("the operator did not answer within %s", wait)), nil
	case err != nil:
		return e.answer(mcp.ElicitationResponseActionCancel, "the approval failed: "+err.Error()), nil
	case !out.Allowed:
		return e.answer(decline, "not approved: "+out.Reason), nil
	}
	res := e.answer(mcp.ElicitationResponseActionAccept, "accepted with its declared defaults ("+out.Reason+")")
	res.Content = f.defaults()
	return res, nil
}

// request is the operator-only approval of one form; false when the card
// could not show every field (the operator must see all that is sent).
func (e *elicitor) request(message string, f form) (approval.Request, bool) {
	id := e.c.plan.server.ID
	clean := e.c.plan.clean
	preview := f.preview(clean)
	if utf8.RuneCountInString(preview) > approval.MaxPreviewRunes {
		return approval.Request{}, false
	}
	sum := sha256.Sum256([]byte(e.c.plan.key + "\x00" + message + "\x00" + string(f.raw)))
	return approval.Request{
		Tool: ElicitTool(id), CallID: fmt.Sprintf("elicit:%s:%d", id, e.seq.Add(1)),
		Risk: catalog.RiskHigh, Policy: catalog.ApprovalPrompt,
		Reasons: []string{
			fmt.Sprintf("MCP server %s asks for a form during a call; allow accepts it with the defaults below, deny declines it (the model sees neither)", id),
			"the server's message: " + shown(clean, message, maxFormMessage),
			fmt.Sprintf("unanswered for %s, the form is cancelled", e.wait()),
		},
		Preview:     preview,
		Fingerprint: hex.EncodeToString(sum[:]), Authority: e.authority,
		// Each form is its own question.
		SessionAllowable: false, OperatorOnly: true,
	}, true
}
