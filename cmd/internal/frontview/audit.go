package frontview

import (
	"encoding/json"
	"io"

	"demiurge.dev/host/runtime"
)

// Audit is `demiurge audit` of the host's events (newest first, as the
// host answers): printed oldest first like a log, as JSON (asJSON) or
// as a table fitted to width, its status column coloured when colour.
func Audit(w io.Writer, evs []runtime.Event, asJSON bool, width int, colour bool) error {
	for i, j := 0, len(evs)-1; i < j; i, j = i+1, j-1 {
		evs[i], evs[j] = evs[j], evs[i]
	}
	if asJSON {
		if evs == nil {
			evs = []runtime.Event{}
		}
		return WriteJSON(w, evs)
	}
	tw := NewTable(w, width, colour, "SEQ", "TIME", "KIND", "TOOL", "STATUS", "APPROVAL")
	tw.Colour(4, StateStyle)
	for _, ev := range evs {
		var d struct {
			Status   string `json:"status"`
			Verdict  string `json:"verdict"` // a net.connection's
			Plugin   string `json:"plugin"`  // a plugin's connection has no tool
			Approval struct {
				Via string `json:"via"`
			} `json:"approval"`
		}
		_ = json.Unmarshal(ev.Data, &d) // a net.connection's status is a number
		tool, status := ev.Tool, d.Status
		if tool == "" && d.Plugin != "" {
			tool = "plugin:" + d.Plugin
		}
		if status == "" {
			status = d.Verdict
		}
		tw.Row(ev.Seq, ev.Time.Local().Format("2006-01-02 15:04:05"), ev.Kind, Dash(tool), Dash(status), Dash(d.Approval.Via))
	}
	return tw.Flush()
}

// Dash is s, or "-" for nothing.
func Dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
