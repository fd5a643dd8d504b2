package frontview

import (
	"fmt"
	"io"
	"strings"
	"time"

	"demiurge.dev/shared/hostv1"
)

// HostStatus is `demiurge host status` (asJSON: `--json`) of the
// running host's answer.
func HostStatus(w io.Writer, st *hostv1.StatusResponse, asJSON bool) error {
	started := time.UnixMilli(st.StartedUnixMs)
	if asJSON {
		return WriteJSON(w, map[string]any{
			"pid": st.Pid, "started": started.UTC(), "uptime_s": int64(time.Since(started).Seconds()),
			"front_ends": st.FrontEnds, "sessions": st.Sessions, "principals": st.Principals,
			"running_tasks": st.RunningTasks, "plugins": st.Plugins, "mcp_connections": st.McpConnections,
			"state": st.StateDir, "workspace": st.Workspace, "idle_exit_ms": st.IdleExitMs, "calls": st.Calls,
			"schedules": st.Schedules, "schedules_paused": st.SchedulesPaused, "next_due": nextDueJSON(st),
		})
	}
	idle := "never"
	if st.IdleExitMs > 0 {
		idle = (time.Duration(st.IdleExitMs) * time.Millisecond).String()
	}
	fmt.Fprintf(w, "pid              %d\n", st.Pid)
	fmt.Fprintf(w, "uptime           %s\n", time.Since(started).Round(time.Second))
	fmt.Fprintf(w, "state            %s\n", st.StateDir)
	fmt.Fprintf(w, "workspace        %s\n", st.Workspace)
	fmt.Fprintf(w, "front ends       %d\n", st.FrontEnds)
	fmt.Fprintf(w, "sessions         %d %s\n", st.Sessions, strings.Join(st.Principals, ","))
	fmt.Fprintf(w, "running tasks    %d\n", st.RunningTasks)
	fmt.Fprintf(w, "plugins          %s\n", orNone(st.Plugins))
	fmt.Fprintf(w, "mcp connections  %s\n", orNone(st.McpConnections))
	fmt.Fprintf(w, "calls            %d\n", st.Calls)
	fmt.Fprintf(w, "idle exit        %s\n", idle)
	_, err := fmt.Fprintf(w, "schedules        %s\n", scheduleStatusLine(st))
	return err
}

// scheduleStatusLine is the host's schedules and its next due run.
func scheduleStatusLine(st *hostv1.StatusResponse) string {
	switch {
	case st.Schedules == 0:
		return "none"
	case st.SchedulesPaused:
		return fmt.Sprintf("%d, all paused (demiurge schedules resume-all)", st.Schedules)
	case st.NextDueUnixMs == 0:
		return fmt.Sprintf("%d, none due", st.Schedules)
	}
	at := time.UnixMilli(st.NextDueUnixMs)
	return fmt.Sprintf("%d, next due %s (in %s): %s", st.Schedules, at.UTC().Format(time.RFC3339), time.Until(at).Round(time.Second), st.NextDueSchedule)
}

func nextDueJSON(st *hostv1.StatusResponse) any {
	if st.NextDueUnixMs == 0 {
		return nil
	}
	return map[string]any{"at": time.UnixMilli(st.NextDueUnixMs).UTC(), "schedule": st.NextDueSchedule}
}

func orNone(xs []string) string {
	if len(xs) == 0 {
		return "none"
	}
	return strings.Join(xs, ", ")
}
