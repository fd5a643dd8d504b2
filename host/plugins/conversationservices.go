package plugins

import (
	"context"
	"errors"
	"strings"
	"unicode/utf8"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/shared/toolsetv1"
)

// Bounds of a clarify question, checked here as well as in the tool: the
// host shows the text to a person, so a plugin does not get to send more.
const (
	MaxClarifyQuestion = 2000
	MaxClarifyChoices  = 8
	MaxClarifyChoice   = 200
)

// ClarifyHook asks the operator; answered=false when no one can answer.
type ClarifyHook func(ctx context.Context, question string, choices []string) (answer string, answered bool, reason string, err error)

// TodoHooks read and replace the task list of the calling turn's
// principal and session.
type TodoHooks interface {
	Read(ctx context.Context) (*toolsetv1.TodoResponse, error)
	Write(ctx context.Context, items []*toolsetv1.TodoItem) (*toolsetv1.TodoResponse, error)
}

// HistoryHook answers session_search for the calling turn's authority.
type HistoryHook func(ctx context.Context, req *toolsetv1.SessionSearchRequest) (*toolsetv1.SessionSearchResponse, error)

// ErrInvalid marks a conversation request the host refuses as malformed;
// the plugin gets InvalidArgument with the error's text.
var ErrInvalid = errors.New("invalid request")

// ErrSessionNotFound answers a session that is missing and one the caller
// may not read alike; the plugin gets NotFound.
var ErrSessionNotFound = errors.New("no such session")

// ErrNotPermitted is a request the caller's authority does not allow
// (operator scope from a channel); the plugin gets PermissionDenied.
var ErrNotPermitted = errors.New("not permitted")

func conversationError(err error) error {
	// The sentinel names the code; the plugin gets the rest of the text.
	text := func(sentinel error) string {
		return strings.TrimPrefix(err.Error(), sentinel.Error()+": ")
	}
	switch {
	case errors.Is(err, ErrInvalid):
		return status.Error(codes.InvalidArgument, text(ErrInvalid))
	case errors.Is(err, ErrSessionNotFound):
		return status.Error(codes.NotFound, err.Error())
	case errors.Is(err, ErrNotPermitted):
		return status.Error(codes.PermissionDenied, text(ErrNotPermitted))
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.Canceled, err.Error())
	}
	return status.Error(codes.Unavailable, err.Error())
}

func (h *hostServices) Clarify(ctx context.Context, req *toolsetv1.ClarifyRequest) (*toolsetv1.ClarifyResponse, error) {
	hk, err := h.hooks(req.GetInvocationId())
	if err != nil {
		return nil, err
	}
	if hk.Clarify == nil {
		return nil, status.Error(codes.PermissionDenied, "only a built-in tool that declares the clarify host service may ask the operator")
	}
	if err := CheckClarify(req.GetQuestion(), req.GetChoices()); err != nil {
		return nil, status.Error(codes.InvalidArgument, err.Error())
	}
	answer, answered, reason, err := hk.Clarify(ctx, req.GetQuestion(), req.GetChoices())
	if err != nil {
		return nil, conversationError(err)
	}
	return &toolsetv1.ClarifyResponse{Answered: answered, Answer: answer, Reason: reason}, nil
}

// CheckClarify bounds a question and its choices: non-empty text, at most
// MaxClarifyChoices distinct choices of at most MaxClarifyChoice
// characters.
func CheckClarify(question string, choices []string) error {
	switch n := utf8.RuneCountInString(question); {
	case !utf8.ValidString(question):
		return errors.New("the question is not valid UTF-8")
	case n == 0:
		return errors.New("the question is empty")
	case n > MaxClarifyQuestion:
		return errors.New("the question is longer than 2000 characters")
	}
	if len(choices) > MaxClarifyChoices {
		return errors.New("more than 8 choices")
	}
	seen := map[string]bool{}
	for _, c := range choices {
		n := utf8.RuneCountInString(c)
		switch {
		case !utf8.ValidString(c):
			return errors.New("a choice is not valid UTF-8")
		case n == 0:
			return errors.New("a choice is empty")
		case n > MaxClarifyChoice:
			return errors.New("a choice is longer than 200 characters")
		case seen[c]:
			return errors.New("two choices are the same")
		}
		seen[c] = true
	}
	return nil
}

func (h *hostServices) todoHooks(id string) (TodoHooks, error) {
	hk, err := h.hooks(id)
	if err != nil {
		return nil, err
	}
	if hk.Todos == nil {
		return nil, status.Error(codes.PermissionDenied, "only a built-in tool that declares the todo host service may read or write the task list")
	}
	return hk.Todos, nil
}

func (h *hostServices) TodoRead(ctx context.Context, req *toolsetv1.TodoReadRequest) (*toolsetv1.TodoResponse, error) {
	th, err := h.todoHooks(req.GetInvocationId())
	if err != nil {
		return nil, err
	}
	resp, err := th.Read(ctx)
	if err != nil {
		return nil, conversationError(err)
	}
	return resp, nil
}

func (h *hostServices) TodoWrite(ctx context.Context, req *toolsetv1.TodoWriteRequest) (*toolsetv1.TodoResponse, error) {
	th, err := h.todoHooks(req.GetInvocationId())
	if err != nil {
		return nil, err
	}
	resp, err := th.Write(ctx, req.GetItems())
	if err != nil {
		return nil, conversationError(err)
	}
	return resp, nil
}

func (h *hostServices) SessionSearch(ctx context.Context, req *toolsetv1.SessionSearchRequest) (*toolsetv1.SessionSearchResponse, error) {
	hk, err := h.hooks(req.GetInvocationId())
	if err != nil {
		return nil, err
	}
	if hk.History == nil {
		return nil, status.Error(codes.PermissionDenied, "only an approved call of a built-in tool that declares the session_history host service may read session history")
	}
	resp, err := hk.History(ctx, req)
	if err != nil {
		return nil, conversationError(err)
	}
	return resp, nil
}
