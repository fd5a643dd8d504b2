package main

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"time"

	"github.com/urfave/cli/v2"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"demiurge.dev/host/schedule"
	"demiurge.dev/host/termtext"
	"demiurge.dev/shared/hostv1"
)

// schedulesCommand is the operator's view of the host's schedules. The
// scheduler lives in the long-lived host: every subcommand reaches it
// through the host socket (starting a host if none runs).
func schedulesCommand() *cli.Command {
	jsonFlag := &cli.BoolFlag{Name: "json", Usage: "print JSON"}
	one := func(name, usage string, flags ...cli.Flag) *cli.Command {
		return &cli.Command{Name: name, Usage: usage, ArgsUsage: "ID", Flags: append(flags, jsonFlag), Action: func(c *cli.Context) error {
			if c.NArg() != 1 {
				return usagef("schedules %s takes one schedule id (see `demiurge schedules list`)", name)
			}
			return schedulesAction(c, name, c.Args().First())
		}}
	}
	all := func(name, usage string) *cli.Command {
		return &cli.Command{Name: name, Usage: usage, Flags: []cli.Flag{jsonFlag}, Action: func(c *cli.Context) error {
			if c.NArg() != 0 {
				return usagef("schedules %s takes no arguments", name)
			}
			return schedulesAction(c, name, "")
		}}
	}
	return &cli.Command{
		Name:  "schedules",
		Usage: "the host's schedules: list, show, runs, pause, resume, delete, run-now, approve (the lease), pause-all, resume-all",
		Subcommands: []*cli.Command{
			all("list", "every schedule: state, next run, last outcome, timing"),
			one("show", "one schedule in full, its lease included"),
			one("runs", "a schedule's last 200 runs, oldest first, with their outcomes"),
			one("pause", "pause a schedule (its runs stop until resume)"),
			one("resume", "resume a schedule; its next run counts from now"),
			one("delete", "delete a schedule (a running run is cancelled) and its runs"),
			one("run-now", "start a run now (its lease and overlap policy apply)"),
			approveCommand(jsonFlag),
			all("pause-all", "the operator's switch: no schedule runs until resume-all"),
			all("resume-all", "undo pause-all; paused time is not a backlog"),
		},
	}
}

// approveCommand is `schedules approve ID FINGERPRINT`: the operator
// approves the schedule they read, named by the fingerprint `schedules
// show` printed; the host refuses it if the schedule (or the core,
// catalog or workspace it would be bound to) changed since.
func approveCommand(jsonFlag cli.Flag) *cli.Command {
	return &cli.Command{Name: "approve", ArgsUsage: "ID FINGERPRINT",
		Usage: "approve (or renew) the schedule's lease as `schedules show ID` showed it, named by the fingerprint it printed: bound to the core revision, catalog and workspace shown",
		Flags: []cli.Flag{jsonFlag,
			&cli.IntFlag{Name: "days", Usage: "how long the lease lasts (default: its requested expiry, else 30; at most 90)"},
			&cli.StringFlag{Name: "fingerprint", Usage: "the approval fingerprint `schedules show ID` printed (or give it after the id)"}},
		Action: func(c *cli.Context) error {
			fp := c.String("fingerprint")
			switch {
			case c.NArg() == 2 && fp == "":
				fp = c.Args().Get(1)
			case c.NArg() == 2:
				return usagef("schedules approve: give the fingerprint once (after the id or as --fingerprint)")
			case c.NArg() != 1:
				return usagef("schedules approve takes one schedule id and the fingerprint `demiurge schedules show ID` printed")
			}
			if fp == "" {
				id := c.Args().First()
				return usagef("schedules approve needs the fingerprint `demiurge schedules show %s` prints: approve what you read with `demiurge schedules approve %s FINGERPRINT`", id, id)
			}
			return schedulesActionFP(c, "approve", c.Args().First(), fp)
		}}
}

func schedulesAction(c *cli.Context, action, id string) error {
	return schedulesActionFP(c, action, id, "")
}

func schedulesActionFP(c *cli.Context, action, id, fingerprint string) error {
	if !hostEnabled() {
		// No in-process path: the scheduler and the leases live in the
		// long-lived host, and a demiurge that a host runs (an agent's
		// command) is no operator: the host refuses it as a peer.
		return cli.Exit("demiurge: schedules live in the long-lived host: run this from the operator's shell without DEMIURGE_HOST=off (a command an agent runs cannot reach them)", exitFailed)
	}
	cl, err := connectHost(c)
	if err != nil {
		return err
	}
	defer cl.Close()
	if err := cl.Needs(5, "schedules"); err != nil {
		return err
	}
	if action == "approve" {
		// An older host approves whatever the schedule is by then.
		if err := cl.Needs(12, "schedules approve with a fingerprint"); err != nil {
			return err
		}
	}
	wire := action
	if action == "list" && !c.Bool("json") {
		wire = "list-lines" // rendered by the host
	}
	res, err := cl.Schedules(c.Context, &hostv1.SchedulesRequest{Action: wire, Id: id, Days: int64(c.Int("days")), Fingerprint: fingerprint})
	if err != nil {
		st := status.Convert(err)
		if st.Code() == codes.NotFound || st.Code() == codes.InvalidArgument {
			return cli.Exit("demiurge: "+st.Message(), exitFailed)
		}
		return fmt.Errorf("the host (pid %d): %s", cl.PID, st.Message())
	}
	w := c.App.Writer
	if c.Bool("json") {
		_, err := fmt.Fprintf(w, "%s\n", res.Json)
		return err
	}
	switch action {
	case "list":
		var out struct {
			Lines     []string `json:"lines"`
			PausedAll bool     `json:"paused_all"`
		}
		if err := json.Unmarshal(res.Json, &out); err != nil {
			return err
		}
		if out.PausedAll {
			fmt.Fprintln(w, "ALL SCHEDULES PAUSED (demiurge schedules resume-all)")
		}
		if len(out.Lines) == 0 {
			fmt.Fprintln(w, "no schedules")
		}
		fmt.Fprint(w, strings.Join(out.Lines, "\n"))
		if len(out.Lines) > 0 {
			fmt.Fprintln(w)
		}
	case "show", "approve", "pause", "resume":
		var sc schedule.ShownSchedule
		if err := json.Unmarshal(res.Json, &sc); err != nil {
			return err
		}
		printSchedule(c, sc, action == "show")
	case "runs":
		var runs []schedule.Run
		if err := json.Unmarshal(res.Json, &runs); err != nil {
			return err
		}
		if len(runs) == 0 {
			fmt.Fprintln(w, "no runs yet")
		}
		for _, r := range runs {
			kind := ""
			switch {
			case r.Manual:
				kind = " (run-now)"
			case r.CatchUp:
				kind = fmt.Sprintf(" (catch-up of %d)", r.Missed)
			}
			if r.Repeats > 0 {
				kind += fmt.Sprintf(" (and %d more like it, the last at %s)", r.Repeats, r.Ended.UTC().Format(time.RFC3339))
			}
			fmt.Fprintf(w, "%s  %-15s  due %s  started %s%s  session %s  %s\n", r.ID, r.Outcome, r.Occurrence.UTC().Format(time.RFC3339),
				r.Started.UTC().Format(time.RFC3339), kind, orDash(r.Session), shownLine(r.Reason))
		}
	case "delete":
		fmt.Fprintf(w, "deleted %s\n", id)
	case "run-now":
		fmt.Fprintf(w, "started a run of %s; `demiurge schedules runs %s` shows its outcome\n", id, id)
	case "pause-all":
		fmt.Fprintln(w, "all schedules paused")
	case "resume-all":
		fmt.Fprintln(w, "schedules resumed")
	}
	return nil
}

// shownLine is model-written text shown on one line of the operator's
// screen: no control character (newline and tab included) or bidi
// control reaches the terminal.
func shownLine(s string) string {
	return termtext.Printable(strings.NewReplacer("\n", "?", "\t", "?").Replace(s), math.MaxInt)
}

func printSchedule(c *cli.Context, shown schedule.ShownSchedule, show bool) {
	sc := shown.Schedule
	w := c.App.Writer
	now := time.Now()
	fmt.Fprintf(w, "id          %s\n", sc.ID)
	fmt.Fprintf(w, "state       %s\n", schedule.State(sc, now))
	if run := schedule.RunInProgress(sc); run != "" && sc.Paused {
		fmt.Fprintf(w, "run         %s in progress: it goes on; no run starts after it until resume\n", run)
	} else if run != "" {
		fmt.Fprintf(w, "run         %s in progress\n", run)
	}
	fmt.Fprintf(w, "timing      %s\n", sc.Timing.Describe())
	if !sc.Next.IsZero() {
		fmt.Fprintf(w, "next        %s\n", sc.Next.UTC().Format(time.RFC3339))
	}
	fmt.Fprintf(w, "core        %s\n", sc.CoreID)
	// What the model wrote is shown as it is and cannot drive the
	// terminal or forge a line of its own (the prompt's lines are
	// indented under it): the operator approves from this screen.
	fmt.Fprintf(w, "prompt      %s\n", strings.ReplaceAll(termtext.Printable(sc.Prompt, math.MaxInt), "\n", "\n            "))
	fmt.Fprintf(w, "missed      %s (grace %ds)\n", sc.Missed, sc.GraceSeconds)
	fmt.Fprintf(w, "overlap     %s\n", sc.Overlap)
	fmt.Fprintf(w, "budget      %d steps, %d output tokens, %ds\n", sc.Budget.Steps, sc.Budget.OutputTokens, sc.Budget.WallSeconds)
	if sc.ResultFile != "" {
		fmt.Fprintf(w, "result file %s\n", shownLine(sc.ResultFile))
	}
	l := sc.Lease
	fmt.Fprintf(w, "lease       tools %s; paths %s; commands %s\n", shownLine(orDash(strings.Join(l.Tools, ", "))), shownLine(orDash(strings.Join(l.Paths, ", "))), shownLine(orDash(strings.Join(l.Commands, " | "))))
	if l.Approved() {
		fmt.Fprintf(w, "            approved by %s at %s, expires %s; bound to core %s, catalog %.12s\n", l.ApprovedBy,
			l.ApprovedAt.UTC().Format(time.RFC3339), l.Expires.UTC().Format(time.RFC3339), l.CoreRevision, l.Catalog)
	} else {
		fmt.Fprintf(w, "            NOT APPROVED: no run starts until the operator approves it (below)\n")
		if !l.Expires.IsZero() {
			fmt.Fprintf(w, "            requested until %s\n", l.Expires.UTC().Format(time.RFC3339))
		}
	}
	if !show {
		return
	}
	// What approving it now approves: all of the above and this binding,
	// named by the fingerprint approve asks for (a change to any of it
	// after this screen makes approve refuse).
	if a := shown.Approval; a != nil {
		fmt.Fprintf(w, "approval    fingerprint %s: binds core %s, catalog %.12s, workspace %s\n", a.Fingerprint, a.CoreRevision, a.Catalog, shownLine(a.Workspace))
		fmt.Fprintf(w, "            `demiurge schedules approve %s %s` approves what is shown above\n", sc.ID, a.Fingerprint)
	} else {
		fmt.Fprintf(w, "approval    cannot be approved now: %s\n", shownLine(orDash(shown.Unapprovable)))
	}
}
