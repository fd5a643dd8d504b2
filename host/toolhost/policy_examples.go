package toolhost

import (
	"context"
	"errors"
	"fmt"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/core"
	"demiurge.dev/host/dispatch"
)

// gatePolicyExamples checks every policy example of c (policy_examples.yaml)
// against the verdict h's call path gives it, with the core's own approval
// rules only: no operator rule, no session allow, no one to answer. An
// example is a check, never a rule: what it expects changes no verdict.
// Every example that fails is named, with its file, line and field.
func gatePolicyExamples(ctx context.Context, h *Host, cat *catalog.Catalog) error {
	c := h.Core
	if len(c.PolicyExamples) == 0 {
		return nil
	}
	rules, err := coreRules(c)
	if err != nil {
		return err
	}
	s := h.Session()
	turn := &dispatch.Turn{
		ID: "policy-examples", Catalog: cat, Authority: s.Authority(), Workspace: h.Workspace,
		Approvals: &approval.Resolver{Rules: rules}, Sandbox: h.Sandbox, Remembered: &dispatch.RememberedSecrets{},
	}
	var errs []error
	for _, ex := range c.PolicyExamples {
		v, err := turn.Verdict(ctx, dispatch.ToolCall{ID: "example", Name: ex.Tool, Args: ex.Args})
		switch {
		case ctx.Err() != nil:
			return ctx.Err()
		case err != nil:
			errs = append(errs, ex.Invalid(err.Error()))
		case v.Decision != ex.Verdict:
			errs = append(errs, ex.Mismatch(v.Decision, v.Reason))
		}
	}
	return errors.Join(errs...)
}

// coreRules are the approval rules c itself declares.
func coreRules(c *core.Core) ([]approval.Rule, error) {
	var rules []approval.Rule
	for _, spec := range c.Approvals {
		r, err := approval.ParseRule(spec)
		if err != nil {
			return nil, fmt.Errorf("%s: approvals: %w", c.File, err)
		}
		r.Origin = "agent.yaml"
		rules = append(rules, r)
	}
	return rules, nil
}
