package schedule

import "time"

// Clock is the scheduler's time: the wall clock in the host, a manual
// one in tests.
type Clock interface {
	Now() time.Time
	// AfterFunc calls f once after d (a timer, not a polling loop).
	AfterFunc(d time.Duration, f func()) Timer
}

// Timer is a pending AfterFunc.
type Timer interface{ Stop() bool }

// WallClock is the real clock.
type WallClock struct{}

func (WallClock) Now() time.Time { return time.Now() }

func (WallClock) AfterFunc(d time.Duration, f func()) Timer { return time.AfterFunc(d, f) }
