package schedule

import (
	"errors"
	"strings"
	"testing"
	"time"
)

func TestBadTimingSaysWhatIsWrong(t *testing.T) {
	for _, c := range []struct {
		name string
		t    Timing
		want string
	}{
		{"six fields", Timing{Cron: "0 0 7 * * 1-5"}, "expected exactly 5 fields"},
		{"out of range", Timing{Cron: "61 7 * * *"}, "above maximum"},
		{"words", Timing{Cron: "every monday"}, "five fields"},
		{"unknown zone", Timing{Cron: "0 7 * * 1-5", Zone: "Mars/Olympus"}, `zone "Mars/Olympus" is not a known IANA time zone`},
		{"Local zone", Timing{Cron: "0 7 * * *", Zone: "Local"}, "name an IANA zone"},
		{"zone inside", Timing{Cron: "CRON_TZ=Europe/Berlin 0 7 * * *"}, "zone field"},
		{"interval as cron", Timing{Cron: "@every 5m"}, "use every_seconds"},
		{"two kinds", Timing{Cron: "0 7 * * *", EverySeconds: 60}, "exactly one of"},
		{"none", Timing{}, "exactly one of"},
		{"zone without cron", Timing{EverySeconds: 60, Zone: "UTC"}, "applies only to a cron"},
		{"interval too short", Timing{EverySeconds: -5}, "every_seconds -5"},
		// Both day fields restricted run on either day: every other day
		// and every Monday, not the Mondays of odd days.
		{"both day fields", Timing{Cron: "0 9 */2 * 1"}, "restricts both day-of-month and day-of-week"},
		{"both day fields, ranges", Timing{Cron: "0 9 1-7 * 1"}, "restricts both day-of-month and day-of-week"},
		{"both day fields, names", Timing{Cron: "0 9 13 * FRI"}, "restricts both day-of-month and day-of-week"},
	} {
		err := c.t.Check()
		if err == nil || !errors.Is(err, ErrTiming) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: Check() = %v; want ErrTiming naming %q", c.name, err, c.want)
		}
	}
	for _, good := range []string{"0 7 * * 1-5", "0 9 */2 * *", "0 9 1 * ?", "@daily"} {
		if err := (Timing{Cron: good, Zone: "Europe/Berlin"}).Check(); err != nil {
			t.Errorf("good cron %q refused: %v", good, err)
		}
	}
}

func TestCronIsReadInItsZone(t *testing.T) {
	tm := Timing{Cron: "0 7 * * 1-5", Zone: "America/New_York"}
	// Friday 2026-03-06 13:00 UTC is 08:00 in New York (EST): the next is
	// Monday 07:00 EST = 12:00 UTC.
	got := tm.Next(time.Date(2026, 3, 6, 13, 0, 0, 0, time.UTC))
	if want := time.Date(2026, 3, 9, 11, 0, 0, 0, time.UTC); !got.Equal(want) {
		// 2026-03-08 is the US spring-forward: Monday 07:00 is EDT (UTC-4).
		t.Errorf("Next = %s, want %s", got, want)
	}
}

// Daylight saving. The parser's rule (robfig/cron/v3): a wall time that
// does not exist on the spring-forward day is skipped that day. Ours
// over it: a wall time that occurs twice on the fall-back day runs once
// (the parser alone runs it twice). Checked over a whole year in Berlin.
func TestDaylightSavingRunsOncePerDay(t *testing.T) {
	tm := Timing{Cron: "30 2 * * *", Zone: "Europe/Berlin"}
	berlin, _ := time.LoadLocation("Europe/Berlin")
	at := time.Date(2026, 1, 1, 0, 0, 0, 0, berlin)
	perDay := map[string]int{}
	for n := tm.Next(at); n.Year() == 2026; n = tm.Next(n) {
		perDay[n.In(berlin).Format("2006-01-02")]++
	}
	if len(perDay) != 364 || perDay["2026-03-29"] != 0 {
		t.Errorf("runs fell on %d days of 2026, want 364 (every day but the spring-forward one)", len(perDay))
	}
	for day, n := range perDay {
		if n != 1 {
			t.Errorf("%s: %d runs, want 1", day, n)
		}
	}
	// Spring forward, 2026-03-29: 02:30 does not exist; the next run is
	// the 30th's.
	spring := tm.Next(time.Date(2026, 3, 29, 0, 0, 0, 0, berlin))
	if got := spring.In(berlin); got.Day() != 30 || got.Hour() != 2 {
		t.Errorf("spring-forward: next run at %s, want 2026-03-30 02:30 CEST", got)
	}
	// Between the two 02:30s of the fall-back day: not run again.
	mid := time.Date(2026, 10, 25, 0, 45, 0, 0, time.UTC) // 02:45 CEST
	if got := tm.Next(mid).In(berlin); got.Day() != 26 {
		t.Errorf("fall-back: next after 02:45 CEST is %s, want the 26th", got)
	}
	// Fall back, 2026-10-25: 02:30 happens twice; one run.
	fall := tm.Next(time.Date(2026, 10, 25, 0, 0, 0, 0, berlin))
	if nxt := tm.Next(fall); nxt.In(berlin).Day() != 26 {
		t.Errorf("fall-back day ran at %s and again at %s", fall.In(berlin), nxt.In(berlin))
	}
}

func TestIntervalCountsFromItsAnchor(t *testing.T) {
	tm := Timing{EverySeconds: 3600, Anchor: t0}
	if got := tm.Next(t0); !got.Equal(t0.Add(time.Hour)) {
		t.Errorf("Next(anchor) = %s", got)
	}
	// After a jump of 5.5 hours the next is the 6th hour, not a backlog.
	if got := tm.Next(t0.Add(330 * time.Minute)); !got.Equal(t0.Add(6 * time.Hour)) {
		t.Errorf("Next after a jump = %s", got)
	}
	once := Timing{At: t0.Add(time.Minute)}
	if got := once.Next(t0.Add(time.Minute)); !got.IsZero() {
		t.Errorf("a one-shot has no occurrence after its time; got %s", got)
	}
}
