package main

import (
	"encoding/json"
	"os"
	"strconv"
	"time"

	"github.com/rogpeppe/go-internal/testscript"

	"demiurge.dev/host/schedule"
)

var scheduleCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	// schedule-late RUNS.json MAXMS: every run of the file (`schedules runs
	// --json`) that reached the model made its first model request within
	// MAXMS of its due time; the figures are logged.
	"schedule-late": func(ts *testscript.TestScript, neg bool, args []string) {
		if len(args) != 2 {
			ts.Fatalf("usage: schedule-late RUNS.json MAXMS")
		}
		b, err := os.ReadFile(ts.MkAbs(args[0]))
		ts.Check(err)
		maxMS, err := strconv.Atoi(args[1])
		ts.Check(err)
		var runs []schedule.Run
		ts.Check(json.Unmarshal(b, &runs))
		n := 0
		for _, r := range runs {
			if r.FirstRequest.IsZero() || r.Manual || r.CatchUp {
				continue
			}
			n++
			late := r.FirstRequest.Sub(r.Occurrence)
			ts.Logf("run %s: first model request %s after its due time (claim/start %s after)", r.ID, late.Round(time.Millisecond), r.Started.Sub(r.Occurrence).Round(time.Millisecond))
			if late > time.Duration(maxMS)*time.Millisecond && !neg {
				ts.Fatalf("run %s: first model request %s after its due time, more than %dms", r.ID, late, maxMS)
			}
		}
		if n == 0 {
			ts.Fatalf("no timed run reached the model")
		}
	},
}
