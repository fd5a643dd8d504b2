package dispatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"unicode/utf8"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/runtime"
	"demiurge.dev/shared/toolsetv1"
)

// The conversation services (clarify, todo, session history) reach host
// state through HostServices. Each hook is handed only to a tool that
// declares the service and comes from a built-in toolset
// (catalog.ToolSpec.GrantsHostService), so no other plugin (an installed
// one, an authored tool) can ask the operator, touch the task list or
// read history, whatever it is called.

// TodoStore keeps task lists (runtime.Store is the real one).
type TodoStore interface {
	Todos(principal, session string) (runtime.TodoList, error)
	ReplaceTodos(ctx context.Context, principal, session string, items []runtime.TodoItem) (runtime.TodoList, error)
}

// HistorySearcher answers session_search (search.History behind
// toolhost's adapter is the real one; dispatch does not import the index).
type HistorySearcher interface {
	Search(ctx context.Context, sc HistoryScope, req *toolsetv1.SessionSearchRequest) (*toolsetv1.SessionSearchResponse, error)
}

// HistoryScope is who reads history: the calling turn's principal and
// bound session, whether that principal is the local operator (who alone
// may ask for an operator scope), and the call, for the audit.
type HistoryScope struct {
	Principal     string
	Session       string
	LocalOperator bool
	Tool, CallID  string
}

// CapabilitySessionRead gates session_search.
const CapabilitySessionRead = "session.read"

// MaxClarifyAnswer bounds the operator's answer the model gets.
const MaxClarifyAnswer = 4000

// NoAnswer is what clarify returns when there is no one to ask.
const NoAnswer = "no one can answer questions in this session (it runs without an operator); go on with your best judgement and say what you assumed"

// grants reports whether the host answers service for p's tool.
func (p *prepared) grants(service string) bool {
	return p.entry != nil && p.entry.Spec.GrantsHostService(service)
}

// conversationHooks adds to hk the hooks of the conversation services p's
// tool is granted; verdict is the call's approval.
func (t *Turn) conversationHooks(p *prepared, verdict approval.Outcome, hk *plugins.Hooks) {
	if p.grants(catalog.ServiceClarify) {
		hk.Clarify = t.clarify
	}
	if p.grants(catalog.ServiceTodo) && t.Todos != nil {
		hk.Todos = todoHooks{store: t.Todos, principal: t.Authority.Principal, session: t.Authority.Session}
	}
	if p.grants(catalog.ServiceSessionHistory) && t.History != nil && historyAdmitted(p, verdict, t) {
		hk.History = func(ctx context.Context, req *toolsetv1.SessionSearchRequest) (*toolsetv1.SessionSearchResponse, error) {
			if err := matchesApproved(req, p.args); err != nil {
				return nil, err
			}
			return t.History.Search(ctx, HistoryScope{
				Principal: t.Authority.Principal, Session: t.Authority.Session,
				LocalOperator: LocalOperator(t.Authority.Principal), Tool: p.call.Name, CallID: p.call.ID,
			}, req)
		}
	}
}

// historyAdmitted: no history is read unless the call holds session.read
// and its approval was resolved from at least a prompt policy at medium
// risk (seed 000: "resolved prompt/medium approval"), whatever a plugin's
// or a core's metadata said.
func historyAdmitted(p *prepared, verdict approval.Outcome, t *Turn) bool {
	return verdict.Allowed && verdict.Via != approval.ViaAuto &&
		p.assess.Approval >= catalog.ApprovalPrompt && p.assess.Risk >= catalog.RiskMedium &&
		t.Authority.Capabilities.Has(CapabilitySessionRead) &&
		p.entry.Effective.Capability == CapabilitySessionRead
}

// LocalOperator reports whether principal is the operator at this
// machine ("local" or "local:USER", what the host gives itself), as
// opposed to a channel's principal: only the local operator may ask for an
// operator scope.
func LocalOperator(principal string) bool {
	return principal == "local" || strings.HasPrefix(principal, "local:")
}

// operatorScopeRequested is a session-history call that asks to cross
// sessions:
// the operator must approve it explicitly (approval.Request.OperatorOnly),
// once per call.
func operatorScopeRequested(p *prepared) bool {
	if !p.grants(catalog.ServiceSessionHistory) {
		return false
	}
	scope, _ := p.args["scope"].(string)
	return scope == "operator"
}

// matchesApproved refuses a request that is not the call the operator
// approved: the plugin asks for exactly what the arguments said.
func matchesApproved(req *toolsetv1.SessionSearchRequest, args map[string]any) error {
	str := func(k string) string { s, _ := args[k].(string); return s }
	var limit uint32
	if n, ok := args["limit"].(json.Number); ok {
		v, err := strconv.ParseUint(n.String(), 10, 32)
		if err != nil {
			return fmt.Errorf("%w: limit %s is not a count", plugins.ErrInvalid, n)
		}
		limit = uint32(v)
	}
	if req.GetSessionId() != str("conversation_id") || req.GetQuery() != str("query") || req.GetLimit() != limit ||
		req.GetOperatorScope() != (str("scope") == "operator") || req.GetReason() != str("reason") {
		return fmt.Errorf("%w: the request is not the call that was approved", plugins.ErrNotPermitted)
	}
	return nil
}

func (t *Turn) clarify(ctx context.Context, question string, choices []string) (string, bool, string, error) {
	if t.Clarify == nil {
		return "", false, NoAnswer, nil
	}
	answer, ok, err := t.Clarify(ctx, question, choices)
	if err != nil {
		return "", false, "", err
	}
	if !ok {
		return "", false, "the operator gave no answer; go on with your best judgement and say what you assumed", nil
	}
	if !utf8.ValidString(answer) {
		answer = strings.ToValidUTF8(answer, "\uFFFD")
	}
	if r := []rune(answer); len(r) > MaxClarifyAnswer {
		answer = string(r[:MaxClarifyAnswer]) + "…"
	}
	return answer, true, "", nil
}

// todoHooks read and replace the task list of one principal's session.
type todoHooks struct {
	store              TodoStore
	principal, session string
}

func (h todoHooks) Read(ctx context.Context) (*toolsetv1.TodoResponse, error) {
	list, err := h.store.Todos(h.principal, h.session)
	if err != nil {
		return nil, err
	}
	return todoResponse(list), nil
}

func (h todoHooks) Write(ctx context.Context, items []*toolsetv1.TodoItem) (*toolsetv1.TodoResponse, error) {
	list := make([]runtime.TodoItem, len(items))
	for i, it := range items {
		list[i] = runtime.TodoItem{ID: it.GetId(), Content: it.GetContent(), Status: it.GetStatus()}
	}
	stored, err := h.store.ReplaceTodos(ctx, h.principal, h.session, list)
	if err != nil {
		if isInvalidTodos(err) {
			return nil, fmt.Errorf("%w: %v", plugins.ErrInvalid, err)
		}
		return nil, err
	}
	return todoResponse(stored), nil
}

func isInvalidTodos(err error) bool { return err != nil && errors.Is(err, runtime.ErrInvalidTodos) }

func todoResponse(list runtime.TodoList) *toolsetv1.TodoResponse {
	resp := &toolsetv1.TodoResponse{Updated: stamp(list.Updated)}
	for _, it := range list.Items {
		resp.Items = append(resp.Items, &toolsetv1.TodoItem{Id: it.ID, Content: it.Content, Status: it.Status})
	}
	return resp
}
