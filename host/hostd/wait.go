package hostd

import (
	"context"
	"fmt"
	"time"

	"demiurge.dev/host/runtime"
	"demiurge.dev/host/toolhost"
	"demiurge.dev/shared/hostv1"
)

// waitTasks is `tools call --wait` after its outcome: the front end's
// session's background tasks are waited for, each end reported; an
// interrupt from the front end, or the front end going away, cancels
// what still runs (they are its foreground work).
func (s *Server) waitTasks(ctx context.Context, fe *frontEnd, ses *toolhost.Session) *hostv1.RunEnded {
	m, err := s.h.Tasks()
	if err != nil {
		return &hostv1.RunEnded{ExitCode: 1, Error: err.Error()}
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	fe.setInterrupt(cancel)
	defer fe.setInterrupt(nil)
	scope := ses.TaskScope()
	live := func() []runtime.Task {
		ts, _ := m.List(scope)
		var out []runtime.Task
		for _, t := range ts {
			if !t.State.Terminal() {
				out = append(out, t)
			}
		}
		return out
	}
	running := live()
	if len(running) == 0 {
		return &hostv1.RunEnded{}
	}
	notice := func(format string, args ...any) {
		_ = fe.send(&hostv1.HostMessage{Msg: &hostv1.HostMessage_Warning{Warning: fmt.Sprintf(format, args...)}})
	}
	notice("demiurge: %d background task(s) running; waiting for them to end (Ctrl-C cancels them; `demiurge tasks` in another shell follows them)\n", len(running))
	for _, t := range running {
		m.Wait(ctx, scope, t.ID, 365*24*time.Hour)
		if ctx.Err() != nil {
			break
		}
	}
	if ctx.Err() != nil {
		notice("demiurge: cancelling the background tasks\n")
		for _, t := range live() {
			cctx, ccancel := context.WithTimeout(context.Background(), 10*time.Second)
			m.Cancel(cctx, scope, t.ID)
			ccancel()
		}
	}
	ts, _ := m.List(scope)
	for _, t := range ts {
		rc, why := "-", t.ExitReason
		if t.ReturnCode != nil {
			rc = fmt.Sprint(*t.ReturnCode)
		}
		if why == "" {
			why = "-"
		}
		notice("demiurge: task %s %s (rc %s, %s)\n", t.ID, t.State, rc, why)
	}
	return &hostv1.RunEnded{}
}
