package catalog

import (
	"fmt"
	"strings"
)

// Display policies say what the operator's tool card shows of a result
// (seed 000: display_policy, default summary).
const (
	// CardQuiet shows a one-line note of the result's size instead of
	// its body; an error result is shown whole.
	CardQuiet = "quiet"
	// CardSummary shows the body up to CardSummaryLines lines and
	// CardSummaryBytes bytes, and says how much was left out.
	CardSummary = "summary"
	// CardFull shows the whole body.
	CardFull = "full"
)

// Bounds of a summary card.
const (
	CardSummaryLines = 200
	CardSummaryBytes = 16 << 10
)

// Model output policies say what the model sees of a result (seed 000:
// model_output_policy, default content).
const (
	// ModelContent: the tool's model_output when it sets one, else its
	// content.
	ModelContent = "content"
	// ModelDisplay: what the tool made for the operator (its
	// display_output when it sets one, else its content).
	ModelDisplay = "display"
	// ModelStatus: only whether the call succeeded and the result's size;
	// the result stays out of the model's context (the record keeps it).
	ModelStatus = "status"
)

var (
	displayPolicies     = []string{CardQuiet, CardSummary, CardFull}
	modelOutputPolicies = []string{ModelContent, ModelDisplay, ModelStatus}
)

// CheckDisplayPolicy refuses a display_policy that is not one of quiet,
// summary, full ("" is the default, summary).
func CheckDisplayPolicy(s string) error { return checkOneOf("display_policy", s, displayPolicies) }

// CheckModelOutputPolicy refuses a model_output_policy that is not one of
// content, display, status ("" is the default, content).
func CheckModelOutputPolicy(s string) error {
	return checkOneOf("model_output_policy", s, modelOutputPolicies)
}

func checkOneOf(field, s string, known []string) error {
	if s == "" {
		return nil
	}
	for _, k := range known {
		if s == k {
			return nil
		}
	}
	return fmt.Errorf("%s %q is not one of %s", field, s, strings.Join(known, ", "))
}
