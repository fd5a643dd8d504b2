package policy

import "demiurge.dev/catalog"

// The side-effect categories of one call: what it does, by its assessed
// subjects, where the effect class says what its tool may do (seed 004,
// side_effect_class_for). The audit records both, so that a terminal call
// that only listed a directory is told from one that ran a build.
const (
	SideEffectRead    = "read"    // reads only: a read tool, or only commands the shell guard found read-only
	SideEffectWrite   = "write"   // writes a file: a path or skill subject it writes
	SideEffectExec    = "exec"    // runs a command the shell guard did not find read-only
	SideEffectNetwork = "network" // reaches out over the network
	SideEffectControl = "control" // changes host state: tasks, the session's catalog
)

// SideEffect is the call's side-effect category. Where its subjects do not
// tell (a tool without subjects), it is the tool's effect class: the
// tool's own declaration is the most the host knows, never less.
func (a *Assessment) SideEffect(effect catalog.Effect) string {
	commands, readOnlyCommands := 0, 0
	for _, s := range a.Subjects {
		if s.Access == catalog.AccessWrite {
			return SideEffectWrite
		}
		if s.Kind == string(catalog.SubjectCommand) {
			commands++
			if s.GuardAllows() {
				readOnlyCommands++
			}
		}
	}
	switch {
	case commands > readOnlyCommands:
		return SideEffectExec
	case effect == catalog.EffectExec && commands > 0:
		// Every command is one the shell guard allows as read-only.
		return SideEffectRead
	}
	switch effect {
	case catalog.EffectRead:
		return SideEffectRead
	case catalog.EffectNetwork:
		return SideEffectNetwork
	case catalog.EffectControl:
		return SideEffectControl
	case catalog.EffectWrite:
		return SideEffectWrite
	}
	// An effect outside the known classes (resolution refuses those):
	// the most side effect there is.
	return SideEffectExec
}
