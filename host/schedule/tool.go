package schedule

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"
)

// toolArgs is schedule_manage's arguments as the host reads them from
// the approved call (unknown fields are refused): the action, the
// schedule it names, and a create's or update's Spec inline.
type toolArgs struct {
	Action string `json:"action"`
	ID     string `json:"id,omitempty"`
	Spec
}

// Caller is who makes a schedule_manage call.
type Caller struct {
	Principal, Session string
	// Unattended is a scheduled run (or its child): refused outright.
	Unattended bool
}

// HandleTool runs one schedule_manage call and returns the model's
// payload as JSON ("content" is its text). A refusal wraps ErrInvalid or
// ErrTiming or ErrNotFound; its message is for the model.
func (m *Manager) HandleTool(ctx context.Context, c Caller, raw []byte) (string, error) {
	if c.Unattended {
		return "", invalid("a scheduled run never manages schedules")
	}
	if c.Session == "" {
		// "" is the operator's own command (SetPaused): a tool call
		// always names its session.
		return "", invalid("a schedule_manage call must come from a session")
	}
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	var a toolArgs
	if err := dec.Decode(&a); err != nil {
		return "", invalid("arguments: %v", err)
	}
	mine := func() (*Schedule, error) {
		if a.ID == "" {
			return nil, invalid("%s needs id (a schedule id from list)", a.Action)
		}
		sc, err := m.Store.Get(a.ID)
		if err != nil || sc.Principal != c.Principal {
			// Another principal's schedule answers like a missing one.
			return nil, fmt.Errorf("%w: %q; list shows yours", ErrNotFound, short(a.ID, 64))
		}
		return sc, nil
	}
	switch a.Action {
	case "create":
		sc, err := m.Create(ctx, a.Spec, c.Principal, c.Session)
		if err != nil {
			return "", err
		}
		return payload(fmt.Sprintf("created %s (%s). No run starts until the operator approves its lease: `demiurge schedules approve %s`.", sc.ID, sc.Timing.Describe(), sc.ID), map[string]any{"schedule": view(*sc, m.now())})
	case "list":
		all, err := m.Store.List()
		if err != nil {
			return "", err
		}
		var b strings.Builder
		var items []map[string]any
		for _, sc := range all {
			if sc.Principal != c.Principal {
				continue
			}
			items = append(items, view(sc, m.now()))
			fmt.Fprintf(&b, "%s\n", Line(sc, m.now()))
		}
		if len(items) == 0 {
			b.WriteString("No schedules.\n")
		}
		return payload(b.String(), map[string]any{"schedules": items})
	case "show":
		sc, err := mine()
		if err != nil {
			return "", err
		}
		runs, _ := m.Store.Runs(sc.ID, 5)
		return payload(Line(*sc, m.now()), map[string]any{"schedule": view(*sc, m.now()), "recent_runs": runs})
	case "update":
		if _, err := mine(); err != nil {
			return "", err
		}
		sc, err := m.Update(ctx, a.ID, a.Spec, c.Session)
		if err != nil {
			return "", err
		}
		msg := "updated " + sc.ID
		if !sc.Lease.Approved() {
			msg += "; its lease needs the operator's approval again: `demiurge schedules approve " + sc.ID + "`"
		}
		return payload(msg, map[string]any{"schedule": view(*sc, m.now())})
	case "pause", "resume":
		if _, err := mine(); err != nil {
			return "", err
		}
		sc, err := m.SetPaused(ctx, a.ID, a.Action == "pause", c.Session)
		if err != nil {
			return "", err
		}
		return payload(a.Action+"d "+sc.ID, map[string]any{"schedule": view(*sc, m.now())})
	case "delete":
		if _, err := mine(); err != nil {
			return "", err
		}
		if err := m.Delete(ctx, a.ID, c.Session); err != nil {
			return "", err
		}
		return payload("deleted "+a.ID, map[string]any{"deleted": a.ID})
	case "run_now":
		sc, err := mine()
		if err != nil {
			return "", err
		}
		if why := m.modelRunNowRefused(*sc); why != "" {
			return "", invalid("run_now of %s refused: %s", sc.ID, why)
		}
		if err := m.Engine.RunNow(ctx, a.ID); err != nil {
			return "", err
		}
		return payload("started a run of "+a.ID+" (its lease and overlap policy apply); see show for its outcome", map[string]any{"schedule": a.ID})
	case "":
		return "", invalid("action is required: create, list, show, update, pause, resume, delete or run_now")
	}
	return "", invalid("unknown action %q: create, list, show, update, pause, resume, delete or run_now", short(a.Action, 32))
}

// Refused reports whether err is a refusal whose message is for the model.
func Refused(err error) bool {
	return errors.Is(err, ErrInvalid) || errors.Is(err, ErrTiming) || errors.Is(err, ErrNotFound)
}

func payload(content string, fields map[string]any) (string, error) {
	fields["content"] = content
	b, err := json.Marshal(fields)
	return string(b), err
}

// view is a schedule as the model and the operator see it.
func view(sc Schedule, now time.Time) map[string]any {
	v := map[string]any{"id": sc.ID, "timing": sc.Timing.Describe(), "prompt": short(sc.Prompt, 200), "core_id": sc.CoreID,
		"paused": sc.Paused, "missed": sc.Missed, "overlap": sc.Overlap, "budget": sc.Budget,
		"lease": map[string]any{"tools": sc.Lease.Tools, "paths": sc.Lease.Paths, "commands": sc.Lease.Commands,
			"approved": sc.Lease.Approved(), "expires": sc.Lease.Expires}, "state": State(sc, now)}
	if !sc.Next.IsZero() {
		v["next"] = sc.Next
	}
	if run := RunInProgress(sc); run != "" {
		v["run_in_progress"] = run
	}
	if sc.Last != "" {
		v["last_outcome"] = sc.Last
	}
	if sc.ResultFile != "" {
		v["result_file"] = sc.ResultFile
	}
	if len(sc.Tools) > 0 {
		v["tools"] = sc.Tools
	}
	return v
}

// State is a schedule's state in a word.
func State(sc Schedule, now time.Time) string {
	switch {
	case sc.Paused:
		// Before running: a pause takes at once (no run starts after it)
		// and must read so, though a run already under way goes on
		// (RunInProgress says which).
		return "paused"
	case sc.Claim != nil:
		return "running"
	case !sc.Lease.Approved():
		return "awaiting-approval"
	case !now.Before(sc.Lease.Expires):
		return "lease-expired"
	case sc.Next.IsZero():
		return "done"
	}
	return "active"
}

// RunInProgress is the id of the schedule's run under way, "" if none.
func RunInProgress(sc Schedule) string {
	if sc.Claim == nil {
		return ""
	}
	return sc.Claim.Run
}

// Line is a schedule in one line.
func Line(sc Schedule, now time.Time) string {
	next := "-"
	if !sc.Next.IsZero() {
		next = sc.Next.UTC().Format(time.RFC3339)
	}
	last := string(sc.Last)
	if last == "" {
		last = "-"
	}
	return fmt.Sprintf("%s  %-17s  next %s  last %s  %s  %q", sc.ID, State(sc, now), next, last, sc.Timing.Describe(), short(sc.Prompt, 60))
}
