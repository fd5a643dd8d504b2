package runtime

import (
	"context"
	"encoding/json"
	"fmt"
)

// The long-lived host answers `demiurge tasks` on its own socket (the
// host protocol's Tasks call) with the task socket's requests and
// replies, so both paths answer, refuse and audit alike.

// AnswerTaskRequest answers one task request (the task socket's JSON,
// without its token: the caller admitted from) for principal only, as
// the task socket does: audited first, refused when it claims another
// principal. Each reply is handed to reply as JSON until one is final.
func (m *TaskManager) AnswerTaskRequest(ctx context.Context, from Peer, principal string, raw []byte, reply func([]byte) bool) {
	s := &TaskServer{m: m, principal: principal, ctx: ctx, via: "the host socket"}
	p := peer{pid: from.PID, uid: from.UID, exe: from.Exe, runBy: from.RunBy}
	send := func(r socketReply) bool {
		b, err := json.Marshal(r)
		return err == nil && reply(b)
	}
	var req socketRequest
	if len(raw) > maxSocketRequest || json.Unmarshal(raw, &req) != nil {
		_ = s.audit(p, req, "unreadable task request")
		send(socketReply{Error: "unreadable task request"})
		return
	}
	if req.Principal == "" {
		req.Principal = principal // the caller's own: a front end need not know its name
	}
	s.answer(p, req, send)
}

// TaskTransport carries one task request (JSON) and hands each JSON
// reply to fn, until fn has seen a final one or the transport ends.
type TaskTransport func(ctx context.Context, req []byte, fn func(reply []byte) error) error

// RemoteTasksVia is a RemoteTasks whose requests travel by t (the host
// socket) instead of the task socket.
func RemoteTasksVia(t TaskTransport) *RemoteTasks { return &RemoteTasks{via: t} }

// callVia is call over r.via.
func (r *RemoteTasks) callVia(ctx context.Context, req socketRequest, fn func(socketReply) error) error {
	line, err := json.Marshal(req)
	if err != nil {
		return err
	}
	done := false
	err = r.via(ctx, line, func(b []byte) error {
		var rep socketReply
		if err := json.Unmarshal(b, &rep); err != nil {
			return fmt.Errorf("the host sent a task reply this demiurge cannot read: %w", err)
		}
		if rep.Error != "" {
			return &remoteError{msg: rep.Error, notFound: rep.NotFound}
		}
		if err := fn(rep); err != nil {
			return err
		}
		done = rep.Done
		return nil
	})
	if err == nil && !done {
		if ctx.Err() != nil {
			return ctx.Err()
		}
		return fmt.Errorf("the host stopped answering the task request: %w", ErrOwnerGone)
	}
	return err
}
