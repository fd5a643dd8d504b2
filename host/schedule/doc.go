// Package schedule is the host's scheduler: schedules (a cron expression
// in a time zone, an interval or one time), their runs, and the engine
// that fires them.
//
// The engine holds one timer, set for the earliest due run: an idle
// scheduler with no active schedule holds none and never wakes. Every run
// is guarded by a claim written in the schedule's record with an expiry,
// by compare-and-swap in the store, so one occurrence never runs twice;
// a claim left by a host that died is recorded once as a failed run and
// the next occurrence fires as usual. Outcomes are a closed set (Outcome)
// and every run's end is durable and audited in the same commit.
//
// What a run may do without anyone present is its Lease, which only the
// operator approves (never the model, never a run's prompt), bound to
// the core revision and catalog fingerprint it was approved against.
package schedule
