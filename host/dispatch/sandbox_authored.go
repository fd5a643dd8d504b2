package dispatch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"

	"demiurge.dev/catalog"
	"demiurge.dev/host/policy"
	"demiurge.dev/host/sandboxing"
	"demiurge.dev/shared/pathrules"
	"demiurge.dev/shared/sandbox"
)

// Seed 004: code an agent wrote runs only under an enforced OS sandbox.
// The host decides the mode of an authored tool's worker from the
// capabilities its tool.yaml declares (nothing declared: read-only and
// offline; fs.write: the workspace; network.fetch: the network), never
// looser than the session's mode; the plugin starts the worker through
// the helper with that policy or not at all.

// isAuthored reports whether the call runs agent-written code.
func (p *prepared) isAuthored() bool {
	return p.entry.Spec.Provenance.Kind == catalog.SourceAuthored
}

// authoredMode is the least a tool declaring caps needs.
func authoredMode(caps []string) sandbox.Mode {
	switch {
	case slices.Contains(caps, policy.CapNetworkFetch):
		return sandbox.Network
	case slices.Contains(caps, policy.CapFSWrite):
		return sandbox.WorkspaceWrite
	}
	return sandbox.ReadOnly
}

// authoredSandboxMode is the mode an authored call runs in: off only when
// the operator said --sandbox off (a core cannot say it), else the
// tighter of the session's mode and what the tool declared.
func (t *Turn) authoredSandboxMode(p *prepared) (sandbox.Mode, error) {
	return t.authoredModeFor(p.entry.Effective.Capabilities)
}

// authoredModeFor is authoredSandboxMode for code declaring caps (a tool
// or a pipeline slot).
func (t *Turn) authoredModeFor(caps []string) (sandbox.Mode, error) {
	if t.Sandbox.Mode == "" {
		return "", errors.New("no OS sandbox is configured for this session, and authored tools run only under one")
	}
	if t.Sandbox.Mode == sandbox.Off {
		return sandbox.Off, nil
	}
	ceiling := t.Sandbox.Mode
	if !t.Sandbox.Explicit && t.Authority.Capabilities.Has(policy.CapNetworkFetch) {
		// Nobody chose the default workspace-write: a tool that declares
		// network.fetch, in a session granted it, gets the network.
		ceiling = sandbox.Network
	}
	return sandbox.Tighter(ceiling, authoredMode(caps)), nil
}

// authoredSandboxRefusal runs before approval: an authored call whose
// sandbox cannot be enforced fails there, without asking anyone (seed
// 004; applyAuthoredSandbox checks again when it starts). Otherwise an
// operator's --sandbox off, or the network mode, is said on the card.
func (t *Turn) authoredSandboxRefusal(p *prepared) string {
	if !p.isAuthored() {
		return ""
	}
	mode, err := t.authoredSandboxMode(p)
	switch {
	case err != nil:
		return fmt.Sprintf("%s: %v", p.call.Name, err)
	case mode == sandbox.Off:
		p.assess.Raise(catalog.RiskHigh, catalog.ApprovalPrompt, "the OS sandbox is off (operator --sandbox off): this authored tool runs unconfined")
	default:
		if miss := t.Sandbox.Unenforceable(mode); miss != "" {
			return fmt.Sprintf("%s: authored tools run only under an enforced OS sandbox (mode %s), and it cannot be enforced here: the kernel lacks %s", p.call.Name, mode, miss)
		}
		if !mode.Offline() {
			p.assess.Raise(catalog.RiskMedium, catalog.ApprovalPrompt, "this authored tool runs with network access (sandbox mode network: it declares network.fetch)")
		}
	}
	return ""
}

// applyAuthoredSandbox puts the worker's policy into the invocation, or
// fails the call (fail closed) when the mode cannot be enforced, whether
// or not the core set sandbox.require.
func (t *Turn) applyAuthoredSandbox(p *prepared, inv *Invocation) error {
	if !p.isAuthored() {
		return nil
	}
	mode, err := t.authoredSandboxMode(p)
	if err != nil {
		return err
	}
	pol := sandbox.Policy{Mode: sandbox.Off}
	if mode != sandbox.Off {
		if miss := t.Sandbox.Unenforceable(mode); miss != "" {
			return fmt.Errorf("authored tools run only under an enforced OS sandbox (mode %s), and it cannot be enforced here: the kernel lacks %s", mode, miss)
		}
		if pol, err = t.authoredPolicy(p, mode); err != nil {
			return err
		}
		if mode == sandbox.Network {
			if p.authoredEgress, err = t.startEgress(p); err != nil {
				return err
			}
			pol.Proxy = p.authoredEgress.Socket()
		}
	}
	enc, err := pol.Encode()
	if err != nil {
		p.closeAuthoredEgress()
		return err
	}
	inv.SandboxPolicy = enc
	return nil
}

// authoredPolicy is the worker's policy: the workspace (written only in
// the write modes; the core and sandboxing.WorkspaceProtected held), the
// tool's own directory and the host's PATH readable, a private tmp dir
// under the runtime directory writable.
func (t *Turn) authoredPolicy(p *prepared, mode sandbox.Mode) (sandbox.Policy, error) {
	dir := ""
	if decl := p.entry.Spec.Provenance.Path; filepath.IsAbs(decl) {
		dir = filepath.Dir(decl)
	}
	return t.authoredPolicyFor(dir, mode)
}

// authoredPolicyFor is authoredPolicy for code in dir (absolute, or "").
func (t *Turn) authoredPolicyFor(dir string, mode sandbox.Mode) (sandbox.Policy, error) {
	tmp, err := authoredTmpDir(t.ArtifactRoot, t.Authority.Session)
	if err != nil {
		return sandbox.Policy{}, err
	}
	ws := t.Workspace.Root
	pol := sandbox.Policy{Mode: mode, Workspace: ws, TmpDir: tmp, Helper: t.Sandbox.Helper}
	t.Sandbox.Limits.Apply(&pol)
	pol.HostOwned, pol.HostPrivate = t.Sandbox.HostOwned, t.Sandbox.HostPrivate
	pol.Protected = append(pol.Protected, t.Sandbox.Protected...)
	held, watched := sandboxing.WorkspaceProtected(ws)
	pol.Protected, pol.Watched = append(pol.Protected, held...), watched
	if dir != "" {
		pol.ReadOnly = append(pol.ReadOnly, dir)
	}
	for _, d := range filepath.SplitList(os.Getenv("PATH")) {
		if filepath.IsAbs(d) && !pathrules.IsSensitive(d) {
			pol.ReadOnly = append(pol.ReadOnly, filepath.Clean(d))
		}
	}
	return pol, nil
}

// authoredTmpDir is <state>/runtime/authored-tmp/<session> for an artifact
// root <state>/runtime/artifacts/<session>: the host's, shared by no one.
func authoredTmpDir(artifactRoot, session string) (string, error) {
	artifacts := filepath.Dir(artifactRoot)
	if artifactRoot == "" || filepath.Base(artifacts) != "artifacts" {
		return "", errors.New("authored tools need a private tmp dir, and the turn has no artifact root under runtime/artifacts to derive it from")
	}
	name := filepath.Base(artifactRoot)
	if session != "" && filepath.Base(session) == session {
		name = session
	}
	dir := filepath.Join(filepath.Dir(artifacts), "authored-tmp", name)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", fmt.Errorf("authored tools' private tmp dir: %w", err)
	}
	return dir, nil
}
