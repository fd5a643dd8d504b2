package policy

import (
	"testing"

	"demiurge.dev/catalog"
	"demiurge.dev/host/policy/shellguard"
)

func TestSideEffect(t *testing.T) {
	cmd := func(d shellguard.Decision) SubjectFact {
		return SubjectFact{Kind: string(catalog.SubjectCommand), Command: &CommandFact{Guard: shellguard.Verdict{Decision: d}}}
	}
	path := func(a catalog.Access) SubjectFact { return SubjectFact{Kind: string(catalog.SubjectPath), Access: a} }
	skill := func(a catalog.Access) SubjectFact { return SubjectFact{Kind: string(catalog.SubjectSkill), Access: a} }
	for _, tc := range []struct {
		name     string
		effect   catalog.Effect
		subjects []SubjectFact
		want     string
	}{
		{"read file", catalog.EffectRead, []SubjectFact{path(catalog.AccessRead)}, SideEffectRead},
		{"write file", catalog.EffectWrite, []SubjectFact{path(catalog.AccessWrite)}, SideEffectWrite},
		{"a read tool that writes a subject", catalog.EffectRead, []SubjectFact{path(catalog.AccessRead), path(catalog.AccessWrite)}, SideEffectWrite},
		{"skill edit", catalog.EffectWrite, []SubjectFact{skill(catalog.AccessWrite)}, SideEffectWrite},
		{"write tool, nothing written it can see", catalog.EffectWrite, nil, SideEffectWrite},
		{"read-only command", catalog.EffectExec, []SubjectFact{cmd(shellguard.Allow)}, SideEffectRead},
		{"prompted command", catalog.EffectExec, []SubjectFact{cmd(shellguard.Prompt)}, SideEffectExec},
		{"blocked command", catalog.EffectExec, []SubjectFact{cmd(shellguard.Block)}, SideEffectExec},
		{"one of two commands not read-only", catalog.EffectExec, []SubjectFact{cmd(shellguard.Allow), cmd(shellguard.Prompt)}, SideEffectExec},
		{"exec tool without a command subject", catalog.EffectExec, nil, SideEffectExec},
		{"a command fact without its guard facts", catalog.EffectExec, []SubjectFact{{Kind: string(catalog.SubjectCommand)}}, SideEffectExec},
		{"network", catalog.EffectNetwork, []SubjectFact{{Kind: string(catalog.SubjectURL)}}, SideEffectNetwork},
		{"control", catalog.EffectControl, nil, SideEffectControl},
		{"an unknown effect class", catalog.Effect("teleport"), nil, SideEffectExec},
	} {
		a := Assessment{Subjects: tc.subjects}
		if got := a.SideEffect(tc.effect); got != tc.want {
			t.Errorf("%s: SideEffect(%s) = %s, want %s", tc.name, tc.effect, got, tc.want)
		}
	}
}
