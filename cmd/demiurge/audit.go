package main

import (
	"encoding/json"

	"github.com/urfave/cli/v2"

	"demiurge.dev/host/runtime"
)

func auditCommand() *cli.Command {
	return &cli.Command{
		Name:  "audit",
		Usage: "the event log: every call's redacted audit event",
		Flags: []cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print JSON"},
			&cli.IntFlag{Name: "limit", Value: 50, Usage: "newest N events (0: all)"},
			&cli.StringFlag{Name: "tool", Usage: "only this tool's events"},
			&cli.StringFlag{Name: "kind", Usage: "only events of this kind"},
		},
		Action: audit,
	}
}

func audit(c *cli.Context) error {
	if c.NArg() > 0 {
		return usagef("audit takes no arguments")
	}
	if c.Int("limit") < 0 {
		return usagef("--limit must be 0 or more")
	}
	evs, err := auditEvents(c, runtime.EventQuery{Tool: c.String("tool"), Kind: c.String("kind"), Limit: c.Int("limit"), NewestFirst: true})
	if err != nil {
		return err
	}
	// Newest N, printed oldest first like a log.
	for i, j := 0, len(evs)-1; i < j; i, j = i+1, j-1 {
		evs[i], evs[j] = evs[j], evs[i]
	}
	if c.Bool("json") {
		if evs == nil {
			evs = []runtime.Event{}
		}
		return writeJSON(c.App.Writer, evs)
	}
	tw := newTable(c, "SEQ", "TIME", "KIND", "TOOL", "STATUS", "APPROVAL")
	tw.Colour(4, stateStyle)
	for _, ev := range evs {
		var d struct {
			Status   string `json:"status"`
			Approval struct {
				Via string `json:"via"`
			} `json:"approval"`
		}
		_ = json.Unmarshal(ev.Data, &d)
		tw.Row(ev.Seq, ev.Time.Local().Format("2006-01-02 15:04:05"), ev.Kind, dash(ev.Tool), dash(d.Status), dash(d.Approval.Via))
	}
	return tw.Flush()
}
