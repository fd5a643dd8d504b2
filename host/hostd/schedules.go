package hostd

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/host/schedule"
	"demiurge.dev/shared/hostv1"
)

// Schedules is the operator's `demiurge schedules` command. It is the
// only way a lease is approved: a tool call cannot reach this RPC (the
// socket admits no process with a demiurge host or plugin among its
// ancestors, runtime.AdmitPeer).
func (s *Server) Schedules(ctx context.Context, req *hostv1.SchedulesRequest) (*hostv1.SchedulesResponse, error) {
	m := s.opts.Schedules
	if m == nil {
		return nil, status.Error(codes.Unavailable, "this host runs no schedules")
	}
	now := m.Engine.Clock.Now()
	var out any
	var err error
	switch req.Action {
	case "list":
		var all []schedule.Schedule
		if all, err = m.Store.List(); err == nil {
			paused, _ := m.Store.PausedAll()
			out = map[string]any{"schedules": all, "paused_all": paused, "now": now}
		}
	case "list-lines":
		// The text listing, rendered here: the front end prints it
		// without decoding every schedule (1,000 in well under 50 ms).
		var all []schedule.Schedule
		if all, err = m.Store.List(); err == nil {
			paused, _ := m.Store.PausedAll()
			lines := make([]string, len(all))
			for i, sc := range all {
				lines[i] = schedule.Line(sc, now)
			}
			out = map[string]any{"lines": lines, "paused_all": paused}
		}
	case "show":
		// With what approving it now would approve: the binding and the
		// fingerprint `schedules approve` asks for.
		var sc *schedule.Schedule
		if sc, err = m.Store.Get(req.Id); err == nil {
			shown := schedule.ShownSchedule{Schedule: *sc}
			var aerr error
			if shown.Approval, aerr = m.ApprovalOf(*sc); aerr != nil {
				shown.Unapprovable = aerr.Error()
			}
			out = shown
		}
	case "runs":
		if _, err = m.Store.Get(req.Id); err == nil {
			// The 200 newest, shown oldest first as every list of what
			// happened is (README, "Lists").
			var runs []schedule.Run
			runs, err = m.Store.Runs(req.Id, 200)
			slices.Reverse(runs)
			out = runs
		}
	case "pause", "resume":
		out, err = m.SetPaused(ctx, req.Id, req.Action == "pause", "")
	case "delete":
		err = m.Delete(ctx, req.Id, "")
		out = map[string]string{"deleted": req.Id}
	case "run-now":
		err = m.Engine.RunNow(ctx, req.Id)
		out = map[string]string{"started": req.Id}
	case "approve":
		out, err = m.Approve(ctx, req.Id, s.principal(req.Principal), int(req.Days), req.Fingerprint)
	case "pause-all", "resume-all":
		err = m.PauseAll(ctx, req.Action == "pause-all", s.principal(req.Principal))
		out = map[string]bool{"paused_all": req.Action == "pause-all"}
	default:
		return nil, status.Errorf(codes.InvalidArgument, "unknown schedules action %q", req.Action)
	}
	switch {
	case errors.Is(err, schedule.ErrNotFound):
		return nil, status.Error(codes.NotFound, err.Error())
	case schedule.Refused(err):
		return nil, status.Error(codes.InvalidArgument, err.Error())
	case err != nil:
		return nil, status.Error(codes.Internal, err.Error())
	}
	b, err := json.Marshal(out)
	if err != nil {
		return nil, status.Error(codes.Internal, err.Error())
	}
	return &hostv1.SchedulesResponse{Json: b}, nil
}

// schedulesKeepUp reports whether the host must stay up for its
// schedules: a run in progress, or the engine's timer set for a next run
// (it holds one exactly when an active schedule has one).
func (s *Server) schedulesKeepUp() bool {
	m := s.opts.Schedules
	return m != nil && (m.Engine.Running() > 0 || !m.Engine.NextWake().IsZero())
}

// scheduleStatus fills status's schedule fields.
func (s *Server) scheduleStatus(res *hostv1.StatusResponse) {
	m := s.opts.Schedules
	if m == nil {
		return
	}
	all, _ := m.Store.List()
	res.Schedules = uint32(len(all))
	res.SchedulesPaused, _ = m.Store.PausedAll()
	if at, id := m.Engine.NextDue(); !at.IsZero() {
		res.NextDueUnixMs, res.NextDueSchedule = at.UnixMilli(), id
	}
}
