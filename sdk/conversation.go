package sdk

import (
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/shared/toolsetv1"
)

// The conversation clients of a call (clarify, todo, session_search): the
// host answers them only for a tool of its built-in toolsets that declares
// the service in Spec.HostServices ("clarify", "todo", "session_history").

// Clarify asks the operator of the calling turn question, optionally with
// choices. answered is false when no one can answer (the turn runs
// headless); reason then says so for the model.
func (c *Context) Clarify(question string, choices []string) (answer string, answered bool, reason string, err error) {
	h, err := c.hostClient()
	if err != nil {
		return "", false, "", err
	}
	resp, err := h.Clarify(c, &toolsetv1.ClarifyRequest{InvocationId: c.InvocationID, Question: question, Choices: choices})
	return resp.GetAnswer(), resp.GetAnswered(), resp.GetReason(), err
}

// TodoRead returns the calling session's task list.
func (c *Context) TodoRead() (*toolsetv1.TodoResponse, error) {
	h, err := c.hostClient()
	if err != nil {
		return nil, err
	}
	return h.TodoRead(c, &toolsetv1.TodoReadRequest{InvocationId: c.InvocationID})
}

// TodoWrite replaces the calling session's task list with items.
func (c *Context) TodoWrite(items []*toolsetv1.TodoItem) (*toolsetv1.TodoResponse, error) {
	h, err := c.hostClient()
	if err != nil {
		return nil, err
	}
	return h.TodoWrite(c, &toolsetv1.TodoWriteRequest{InvocationId: c.InvocationID, Items: items})
}

// SessionSearch reads session history as the host allows the calling
// turn (its own session; others only under an approved operator scope).
func (c *Context) SessionSearch(req *toolsetv1.SessionSearchRequest) (*toolsetv1.SessionSearchResponse, error) {
	h, err := c.hostClient()
	if err != nil {
		return nil, err
	}
	r := &toolsetv1.SessionSearchRequest{
		InvocationId: c.InvocationID, SessionId: req.GetSessionId(), Query: req.GetQuery(),
		Limit: req.GetLimit(), OperatorScope: req.GetOperatorScope(), Reason: req.GetReason(),
	}
	return h.SessionSearch(c, r)
}

// IsInvalid reports whether the host refused a request as malformed.
func IsInvalid(err error) bool { return status.Code(err) == codes.InvalidArgument }

// IsNotPermitted reports whether the host refused a request the call may
// not make.
func IsNotPermitted(err error) bool { return status.Code(err) == codes.PermissionDenied }

// IsNotFound reports whether the host answered that what was asked for
// does not exist for the caller (missing or not the caller's, alike).
func IsNotFound(err error) bool { return status.Code(err) == codes.NotFound }
