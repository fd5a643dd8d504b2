package dispatch

import (
	"context"
	"encoding/json"

	"demiurge.dev/catalog"
	"demiurge.dev/host/plugins"
)

// ScheduleCall is one schedule_manage call as the host's scheduler gets
// it: the call's own arguments (those dispatch validated and approved),
// its id and its turn's.
type ScheduleCall struct {
	Turn, CallID string
	Args         json.RawMessage
}

// Scheduler answers this turn's schedule_manage calls; a refusal wraps
// plugins.ErrScheduleRefused. The host sets it only for turns of its own
// sessions that may manage schedules (never a scheduled run's); nil
// refuses schedule_manage.
type Scheduler func(ctx context.Context, call ScheduleCall) (string, error)

// scheduleHook gives a built-in tool that declares the schedule service
// (schedule_manage), and only it, the turn's scheduler bound to this call.
func (t *Turn) scheduleHook(p *prepared, hk *plugins.Hooks) {
	if t.Schedules == nil || !p.grants(catalog.ServiceSchedule) {
		return
	}
	call := ScheduleCall{Turn: t.ID, CallID: p.call.ID, Args: append(json.RawMessage(nil), p.argsRaw...)}
	hk.Schedule = func(ctx context.Context) (string, error) { return t.Schedules(ctx, call) }
}
