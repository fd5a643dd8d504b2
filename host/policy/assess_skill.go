package policy

import (
	"fmt"
	"path/filepath"

	"demiurge.dev/catalog"
	"demiurge.dev/shared/skillpath"
)

// assessSkill derives the path a skill call touches under the core's
// skills root and assesses it as a path fact, so that the approval card,
// the approval rules and the resource keys see the real file. Every
// refusal comes before approval: no skills root, a bad name, action or
// file path (skillpath.Resolve), a path a symlink leads out of the root.
// A write is the agent changing its own instructions: it always asks,
// and (the skills root being part of the core) only the operator answers.
func (a *Assessment) assessSkill(fact *SubjectFact, s catalog.Subject, args map[string]any, ws Workspace) error {
	if ws.SkillsRoot == "" {
		return fmt.Errorf("this agent core has no skills root (slots.skills); there are no skills")
	}
	action, err := optionalString(args, s.ActionArg)
	if err != nil {
		return err
	}
	file, err := optionalString(args, s.PathArg)
	if err != nil {
		return err
	}
	t, err := skillpath.Resolve(action, fact.Value, file)
	if err != nil {
		return err
	}
	root := filepath.Clean(ws.SkillsRoot)
	abs := filepath.Join(root, filepath.FromSlash(t.Rel))
	realRoot, err := realPath(root)
	if err != nil {
		return fmt.Errorf("the skills root %s cannot be resolved: %v", root, err)
	}
	real := ws.Real(abs)
	if _, in := within(realRoot, real.Abs); !in {
		// Fail closed: the skill (or a directory of it) is a symlink out.
		a.Block = true
		a.raise(catalog.RiskHigh, catalog.ApprovalDeny, "skill "+t.Rel+" leads through a symlink to "+real.Abs+", outside the skills root; refused")
	}
	fact.Kind = string(catalog.SubjectPath) // approval rules and cards treat it as the path it is
	fact.Resolved = abs
	fact.Rel, fact.Inside = within(ws.Root, abs)
	fact.Real, fact.RealRel, fact.RealInside = real.Abs, real.Rel, real.Inside
	fact.Access = catalog.AccessRead
	a.addKey(ResourceKeyFS + abs)
	if !t.Write {
		return nil
	}
	fact.Access = catalog.AccessWrite
	fact.Protected = true
	verb := "writes skill file " + t.Rel
	if t.Dir {
		verb = "deletes skill " + t.Rel + " with all its files"
	}
	a.raise(catalog.RiskHigh, catalog.ApprovalPrompt, verb+" under the skills root "+root+": skills are the agent's instructions, so only the operator's answer or an --approve rule naming this exact path approves it")
	return nil
}
