package main

import (
	_ "embed"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"demiurge.dev/sdk"
)

//go:embed clarify.md
var clarifyDoc string

// Bounds of a question (the host checks them again).
const (
	maxQuestion       = 2000
	maxChoices        = 8
	maxChoiceLength   = 200
	minChoicesOffered = 2
)

type clarifyParams struct {
	Question string   `json:"question" jsonschema:"minLength=1,maxLength=2000" jsonschema_description:"The question for the operator: one decision you cannot make yourself, with the context they need to answer."`
	Choices  []string `json:"choices,omitempty" jsonschema:"maxItems=8" jsonschema_description:"Optional answers to pick from (2 to 8, each at most 200 characters, all different). Leave out for a free-text answer."`
}

// clarifyPayload is the result's structured form.
type clarifyPayload struct {
	Answered bool   `json:"answered"`
	Answer   string `json:"answer,omitempty"`
	Reason   string `json:"reason,omitempty"`
}

func newClarify() sdk.Tool {
	return sdk.Define(sdk.Spec{
		Name: "clarify", Description: clarifyDoc, Effect: sdk.EffectControl,
		HostServices: []string{"clarify"},
		Metadata:     sdk.Metadata{Risk: "low", ApprovalPolicy: "auto", DisplayPolicy: "full"},
	}, clarify)
}

func clarify(ctx *sdk.Context, p clarifyParams) (*sdk.Result, error) {
	if err := checkQuestion(p.Question, p.Choices); err != nil {
		return sdk.Errorf("invalid_question", "clarify: %v", err), nil
	}
	answer, answered, reason, err := ctx.Clarify(p.Question, p.Choices)
	switch {
	case errors.Is(err, sdk.ErrNoHost):
		answered, reason = false, "no one can answer questions here; go on with your best judgement and say what you assumed"
	case sdk.IsInvalid(err):
		return sdk.Errorf("invalid_question", "clarify: %s", sdk.HostMessage(err)), nil
	case err != nil:
		return nil, fmt.Errorf("clarify: %s", sdk.HostMessage(err))
	}
	if !answered {
		// Not an error: the model goes on without an answer.
		return &sdk.Result{Content: "No answer: " + reason, Structured: clarifyPayload{Reason: reason}}, nil
	}
	return &sdk.Result{Content: "The operator answered: " + answer, Structured: clarifyPayload{Answered: true, Answer: answer}}, nil
}

// checkQuestion says what is wrong with a question in words the model
// can act on.
func checkQuestion(q string, choices []string) error {
	if strings.TrimSpace(q) == "" {
		return errors.New("the question is empty")
	}
	if n := utf8.RuneCountInString(q); n > maxQuestion {
		return fmt.Errorf("the question has %d characters, at most %d", n, maxQuestion)
	}
	if len(choices) == 1 {
		return fmt.Errorf("give %d to %d choices, or none for a free-text answer", minChoicesOffered, maxChoices)
	}
	if len(choices) > maxChoices {
		return fmt.Errorf("%d choices, at most %d", len(choices), maxChoices)
	}
	seen := map[string]bool{}
	for i, c := range choices {
		switch {
		case strings.TrimSpace(c) == "":
			return fmt.Errorf("choice %d is empty", i+1)
		case utf8.RuneCountInString(c) > maxChoiceLength:
			return fmt.Errorf("choice %d is longer than %d characters", i+1, maxChoiceLength)
		case seen[c]:
			return fmt.Errorf("choice %d repeats an earlier one", i+1)
		}
		seen[c] = true
	}
	return nil
}
