package evolve

import (
	"errors"
	"strings"
)

// inRun makes err's paths relative to the run's work tree (the host's
// read-only copy of the reviewed commit reads the same): a refusal, which
// may reach the model, names the run's own files without the state
// directory's absolute place ("run RUN: agents/default/agent.yaml:2:1: …").
func inRun(err error, id string, dirs ...string) error {
	if err == nil || errors.Is(err, ErrNoRun) {
		return err
	}
	msg := err.Error()
	for _, d := range dirs {
		msg = strings.ReplaceAll(msg, d+"/", "")
		msg = strings.ReplaceAll(msg, d, "the run's work tree")
	}
	return &runError{msg: "run " + id + ": " + msg, err: err}
}

// runError keeps the cause for errors.Is (a context's end, say).
type runError struct {
	msg string
	err error
}

func (e *runError) Error() string { return e.msg }
func (e *runError) Unwrap() error { return e.err }
