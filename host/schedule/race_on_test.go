//go:build race

package schedule

// raceEnabled: the race detector slows every step several times, so the
// timing bounds are logged, not checked.
const raceEnabled = true
