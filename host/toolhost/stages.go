package toolhost

import (
	"context"

	"demiurge.dev/host/core"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/pipeline"
)

// PipelineStages runs this session's core's input and output stages for
// the turn loop; nil when neither names an authored slot.
func (s *Session) PipelineStages() pipeline.Stages {
	p := s.h.Core.Pipelines
	in, out := pipeline.HasAuthored(p.Input), pipeline.HasAuthored(p.Output)
	if !in && !out {
		return nil
	}
	return sessionStages{s: s, output: out}
}

type sessionStages struct {
	s      *Session
	output bool
}

func (st sessionStages) Input(ctx context.Context, message string) (pipeline.Result, error) {
	return st.run(ctx, pipeline.StageInput, st.s.h.Core.Pipelines.Input, message)
}

func (st sessionStages) Output(ctx context.Context, answer string) (pipeline.Result, error) {
	return st.run(ctx, pipeline.StageOutput, st.s.h.Core.Pipelines.Output, answer)
}

func (st sessionStages) HasOutput() bool { return st.output }

// run runs one stage with the authority of a fresh dispatch turn of the
// session, the same a tool call of this turn gets, bound to the model
// turn's front end: a slot's tool call is approved and counted as the
// turn's own calls are.
func (st sessionStages) run(ctx context.Context, stage string, groups []core.Group, text string) (pipeline.Result, error) {
	dt, err := st.s.NewTurn(ctx)
	if err != nil {
		return pipeline.Result{}, err
	}
	dispatch.Bind(ctx, dt) // the model turn's approver and call count
	return pipeline.RunStage(ctx, stage, groups, st.s.h.Core.Slots, st.s.h.SlotInvoker(dt), text)
}
