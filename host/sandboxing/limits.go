package sandboxing

import (
	"fmt"
	"strconv"

	"demiurge.dev/shared/sandbox"
)

// The operator's limits of every sandboxed command, from the host's
// environment (never from a core: agent.yaml is the agent's to write).
const (
	EnvMaxProcs = "DEMIURGE_SANDBOX_MAX_PROCS"
	EnvTmpMiB   = "DEMIURGE_SANDBOX_TMP_MIB"
)

// Limits bound one sandboxed command: processes and threads at once
// (the pid_max of its pid namespace) and the size of its private TMPDIR
// (a tmpfs of its own). Zero means the helper's default.
type Limits struct {
	MaxProcs int `json:"max_procs"`
	TmpMiB   int `json:"tmp_mib"`
}

// LimitsFromEnv reads the operator's limits; a value that is not a number
// in range is an error naming the variable.
func LimitsFromEnv(getenv func(string) string) (Limits, error) {
	var l Limits
	for _, v := range []struct {
		name     string
		dst      *int
		min, max int
	}{
		{EnvMaxProcs, &l.MaxProcs, sandbox.MinMaxProcs, 4<<20 - 1},
		{EnvTmpMiB, &l.TmpMiB, 1, 1 << 20},
	} {
		s := getenv(v.name)
		if s == "" {
			continue
		}
		n, err := strconv.Atoi(s)
		if err != nil || n < v.min || n > v.max {
			return Limits{}, fmt.Errorf("%s=%q: want a whole number from %d to %d", v.name, s, v.min, v.max)
		}
		*v.dst = n
	}
	return l, nil
}

// Effective is l with the helper's defaults filled in.
func (l Limits) Effective() Limits {
	if l.MaxProcs == 0 {
		l.MaxProcs = sandbox.DefaultMaxProcs
	}
	if l.TmpMiB == 0 {
		l.TmpMiB = sandbox.DefaultTmpMiB
	}
	return l
}

// Apply puts the limits into a command's policy.
func (l Limits) Apply(p *sandbox.Policy) {
	p.MaxProcs, p.TmpMiB = l.MaxProcs, l.TmpMiB
}
