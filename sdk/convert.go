package sdk

import (
	"encoding/json"

	"demiurge.dev/shared/toolsetv1"
)

var effectToProto = map[Effect]toolsetv1.Effect{
	EffectRead: toolsetv1.Effect_EFFECT_READ, EffectWrite: toolsetv1.Effect_EFFECT_WRITE,
	EffectExec: toolsetv1.Effect_EFFECT_EXEC, EffectNetwork: toolsetv1.Effect_EFFECT_NETWORK,
	EffectControl: toolsetv1.Effect_EFFECT_CONTROL,
}

func specToProto(s Spec, precheck bool) *toolsetv1.ToolSpec {
	p := &toolsetv1.ToolSpec{
		Name: s.Name, Description: s.Description, InputSchema: s.Schema,
		Effect: effectToProto[s.Effect], HasPrecheck: precheck, HostServices: s.HostServices,
		ApprovalPreview: s.ApprovalPreview,
		Metadata: &toolsetv1.Metadata{
			Risk: s.Metadata.Risk, Capability: s.Metadata.Capability,
			ApprovalPolicy: s.Metadata.ApprovalPolicy, DisplayPolicy: s.Metadata.DisplayPolicy,
			ModelOutputPolicy: s.Metadata.ModelOutputPolicy, Capabilities: s.Metadata.Capabilities,
		},
	}
	for _, sub := range s.Subjects {
		p.Subjects = append(p.Subjects, subjectToProto(sub))
	}
	return p
}

func subjectToProto(s Subject) *toolsetv1.Subject {
	switch s.kind {
	case "path":
		access := toolsetv1.Access_ACCESS_READ
		if s.write {
			access = toolsetv1.Access_ACCESS_WRITE
		}
		return &toolsetv1.Subject{Kind: &toolsetv1.Subject_Path{Path: &toolsetv1.PathSubject{Argument: s.arg, Access: access}}}
	case "url":
		return &toolsetv1.Subject{Kind: &toolsetv1.Subject_Url{Url: &toolsetv1.UrlSubject{Argument: s.arg}}}
	default:
		return &toolsetv1.Subject{Kind: &toolsetv1.Subject_Command{Command: &toolsetv1.CommandSubject{
			CommandArgument: s.arg, CwdArgument: s.cwdArg, EnvArgument: s.envArg,
			BackgroundArgument: s.backgroundArg, TimeoutArgument: s.timeoutArg}}}
	}
}

func resultToProto(r *Result) *toolsetv1.ToolResult {
	p := &toolsetv1.ToolResult{IsError: r.IsError, Content: r.Content, ErrorCode: r.ErrorCode}
	if r.ModelOutput != nil {
		p.ModelOutput, p.HasModelOutput = *r.ModelOutput, true
	}
	if r.DisplayOutput != nil {
		p.DisplayOutput, p.HasDisplayOutput = *r.DisplayOutput, true
	}
	if r.Structured != nil {
		if b, err := json.Marshal(r.Structured); err == nil {
			p.Structured = b
		}
	}
	return p
}
