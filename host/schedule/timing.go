package schedule

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/robfig/cron/v3"
)

// Timing is when a schedule is due: exactly one of a cron expression (in
// Zone), an interval, or one time.
type Timing struct {
	Cron string `json:"cron,omitempty"`
	// Zone is the IANA zone the cron expression is read in (default UTC).
	Zone string `json:"zone,omitempty"`
	// EverySeconds is an interval, counted from Anchor.
	EverySeconds int64     `json:"every_seconds,omitempty"`
	Anchor       time.Time `json:"anchor,omitempty"`
	// At is a one-shot time.
	At time.Time `json:"at,omitempty"`
}

// Bounds of a timing.
const (
	MinEvery = time.Second
	MaxEvery = 366 * 24 * time.Hour
)

// ErrTiming marks a timing that is refused; its message says what is
// wrong and what is accepted.
var ErrTiming = errors.New("invalid schedule timing")

// cronParser reads the five standard fields (minute hour day-of-month
// month day-of-week) and the @hourly-style descriptors; seconds are not
// offered (no schedule needs them, and they make a mistyped expression
// fire sixty times a minute).
var cronParser = cron.NewParser(cron.Minute | cron.Hour | cron.Dom | cron.Month | cron.Dow | cron.Descriptor)

// Check validates t: one kind, a parseable expression and a known zone.
func (t Timing) Check() error {
	kinds := 0
	if t.Cron != "" {
		kinds++
	}
	if t.EverySeconds != 0 {
		kinds++
	}
	if !t.At.IsZero() {
		kinds++
	}
	if kinds != 1 {
		return fmt.Errorf("%w: give exactly one of cron (with an optional zone), every_seconds or at; got %d", ErrTiming, kinds)
	}
	if t.Zone != "" && t.Cron == "" {
		return fmt.Errorf("%w: zone %q applies only to a cron expression", ErrTiming, t.Zone)
	}
	if t.Cron != "" {
		_, err := t.cron()
		return err
	}
	if t.EverySeconds != 0 {
		d := time.Duration(t.EverySeconds) * time.Second
		if d < MinEvery || d > MaxEvery {
			return fmt.Errorf("%w: every_seconds %d: must be %d to %d", ErrTiming, t.EverySeconds, int64(MinEvery/time.Second), int64(MaxEvery/time.Second))
		}
	}
	return nil
}

// location is the cron expression's zone.
func (t Timing) location() (*time.Location, error) {
	if t.Zone == "" {
		return time.UTC, nil
	}
	// "Local" would follow whatever zone the host process has: refused,
	// so that a schedule means the same after a move.
	if t.Zone == "Local" || strings.ContainsAny(t.Zone, " \t\n") {
		return nil, fmt.Errorf("%w: zone %q: name an IANA zone such as Europe/Berlin or UTC", ErrTiming, t.Zone)
	}
	loc, err := time.LoadLocation(t.Zone)
	if err != nil {
		return nil, fmt.Errorf("%w: zone %q is not a known IANA time zone (for example Europe/Berlin, America/New_York, UTC)", ErrTiming, t.Zone)
	}
	return loc, nil
}

func (t Timing) cron() (cron.Schedule, error) {
	expr := strings.TrimSpace(t.Cron)
	if strings.HasPrefix(expr, "TZ=") || strings.HasPrefix(expr, "CRON_TZ=") {
		return nil, fmt.Errorf("%w: cron %q: give the time zone in the zone field, not inside the expression", ErrTiming, t.Cron)
	}
	loc, err := t.location()
	if err != nil {
		return nil, err
	}
	// Both day fields restricted: the parser (as POSIX cron) runs on
	// either day (OR), and robfig counts "*/2" as restricted where vixie
	// cron does not, so "0 9 */2 * 1" runs every other day and every
	// Monday: far more often than it reads. Refused; one day field says
	// the same without the doubt.
	if f := strings.Fields(expr); len(f) == 5 && !anyDay(f[2]) && !anyDay(f[4]) {
		return nil, fmt.Errorf("%w: cron %q restricts both day-of-month and day-of-week, and runs on either (not both): restrict one and give the other as *", ErrTiming, t.Cron)
	}
	sched, err := cronParser.Parse(expr)
	if err != nil {
		return nil, fmt.Errorf("%w: cron %q: %v (five fields: minute hour day-of-month month day-of-week, e.g. \"0 7 * * 1-5\", or @hourly/@daily/@weekly)", ErrTiming, t.Cron, err)
	}
	if _, every := sched.(cron.ConstantDelaySchedule); every {
		return nil, fmt.Errorf("%w: cron %q: use every_seconds for an interval", ErrTiming, t.Cron)
	}
	if spec, ok := sched.(*cron.SpecSchedule); ok {
		spec.Location = loc
	}
	return sched, nil
}

// Next is the first occurrence strictly after after (zero: none).
func (t Timing) Next(after time.Time) time.Time {
	switch {
	case t.Cron != "":
		s, err := t.cron()
		if err != nil {
			return time.Time{}
		}
		loc, _ := t.location()
		// Our rule over the parser's: when the clocks go back, a wall
		// time already passed that day is not run again (the parser
		// would run 02:30 twice on a fall-back day).
		n := s.Next(after)
		for i := 0; i < 4 && !n.IsZero() && !wall(n, loc).After(wall(after, loc)); i++ {
			n = s.Next(n)
		}
		return n.UTC()
	case t.EverySeconds > 0:
		d := time.Duration(t.EverySeconds) * time.Second
		if after.Before(t.Anchor) {
			return t.Anchor.UTC()
		}
		n := after.Sub(t.Anchor)/d + 1
		return t.Anchor.Add(n * d).UTC()
	case !t.At.IsZero():
		if t.At.After(after) {
			return t.At.UTC()
		}
	}
	return time.Time{}
}

// Describe is the timing in one line, for listings.
func (t Timing) Describe() string {
	switch {
	case t.Cron != "":
		z := t.Zone
		if z == "" {
			z = "UTC"
		}
		return fmt.Sprintf("cron %q %s", t.Cron, z)
	case t.EverySeconds > 0:
		return fmt.Sprintf("every %s", time.Duration(t.EverySeconds)*time.Second)
	case !t.At.IsZero():
		return "once at " + t.At.UTC().Format(time.RFC3339)
	}
	return "never"
}

// wall is t's local date and time in loc, as if it were UTC: the clock on
// the wall, which goes back when daylight saving ends.
func wall(t time.Time, loc *time.Location) time.Time {
	l := t.In(loc)
	return time.Date(l.Year(), l.Month(), l.Day(), l.Hour(), l.Minute(), l.Second(), l.Nanosecond(), time.UTC)
}

// anyDay says whether a day field is every day: "*" or "?".
func anyDay(field string) bool { return field == "*" || field == "?" }
