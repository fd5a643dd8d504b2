package catalog

import (
	"strconv"
	"strings"
)

// ArgumentError says what is wrong with a call's arguments, in words a
// model can act on: which argument, what was expected, what was given.
type ArgumentError struct {
	Problems []ArgumentProblem
}

// ArgumentProblem is one thing wrong with the arguments.
type ArgumentProblem struct {
	// Path is the argument's path ("limit", "edits[0].old"); empty when the
	// problem concerns the arguments document as a whole.
	Path string
	// Message is the complete sentence for the model.
	Message string
}

// maxReportedProblems keeps an error short: a model fixes the first few and
// retries; a wall of text helps nobody.
const maxReportedProblems = 5

func (e *ArgumentError) Error() string {
	msgs := make([]string, 0, maxReportedProblems+1)
	for i, p := range e.Problems {
		if i == maxReportedProblems {
			msgs = append(msgs, "and "+strconv.Itoa(len(e.Problems)-i)+" more")
			break
		}
		msgs = append(msgs, p.Message)
	}
	return strings.Join(msgs, "; ")
}
