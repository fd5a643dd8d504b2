package sandbox

// The sandbox starts every command in a pid namespace of its own (see
// firststage.NamespaceFlags) whose pid_max is the process limit: the
// kernel (6.14 on) keeps pid_max per pid namespace and refuses a fork past it, for root as
// for anyone. RLIMIT_NPROC would not do: it counts per user, and the
// kernel exempts root from it altogether.

// DefaultMaxProcs is the process limit of a sandboxed command when the
// operator set none: processes and threads at once, the helper that
// stands as the namespace's init included.
const DefaultMaxProcs = 1024

// MinMaxProcs is the lowest limit accepted: the kernel reserves pids
// below 300 and, once pids wrap, hands out only pids from 300 up.
const MinMaxProcs = 400

// DefaultTmpMiB is the size of a sandboxed command's private TMPDIR, a
// tmpfs of its own, when the operator set none.
const DefaultTmpMiB = 1024

// maxProcs and tmpMiB are the policy's limits with their defaults.
func (p Policy) maxProcs() int {
	if p.MaxProcs == 0 {
		return DefaultMaxProcs
	}
	return p.MaxProcs
}

func (p Policy) tmpMiB() int {
	if p.TmpMiB == 0 {
		return DefaultTmpMiB
	}
	return p.TmpMiB
}
