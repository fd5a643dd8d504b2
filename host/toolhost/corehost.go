package toolhost

import (
	"errors"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"sync"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/corerepo"
	"demiurge.dev/host/corerepo/corepath"
	"demiurge.dev/shared/sandbox"
)

// ErrUnknownCore is CoreHost's answer for an id the revision does not
// hold (or a plain core directory, which names no other core).
var ErrUnknownCore = errors.New("unknown core_id")

// coreHosts are the hosts of the other cores of a host's revision.
type coreHosts struct {
	mu     sync.Mutex
	byID   map[string]*Host
	closed bool
}

// CoreHost is the host of core id of the revision h runs, for a child
// (or a scheduled run) of that core: its own plugins, pipeline, slots,
// bootstrap and tools, over h's store, task manager, workspace, sandbox
// and spawn gate. It never holds more than h: its approval rules are h's
// (the core's own allow rules are dropped, its prompt and deny rules
// kept), its sandbox is h's, and a session of it gets its authority from
// a parent (Session.DelegateTo) or the scheduler, narrowed to what the
// core grants. "" and h's own id are h. An id the revision does not hold,
// or any other id under a plain --core directory, wraps ErrUnknownCore
// and names the ids there are. It is opened once and closed with h.
func (h *Host) CoreHost(id string) (*Host, error) {
	b := h.hooksHost()
	own := b.coreID()
	if id == "" || id == own {
		return b, nil
	}
	if b.Core.Version == nil {
		return nil, fmt.Errorf("%w %q: this session runs a plain core directory (--core), not a core of the core repository, so it names no other core; omit core_id", ErrUnknownCore, id)
	}
	b.coreHosts.mu.Lock()
	defer b.coreHosts.mu.Unlock()
	if b.coreHosts.closed {
		return nil, errors.New("the host is closing")
	}
	if c := b.coreHosts.byID[id]; c != nil {
		return c, nil
	}
	c, err := b.openCoreHost(id)
	if err != nil {
		return nil, err
	}
	if b.coreHosts.byID == nil {
		b.coreHosts.byID = map[string]*Host{}
	}
	b.coreHosts.byID[id] = c
	return c, nil
}

// RevisionCores are the core ids of the revision h runs; nil for a plain
// core directory.
func (h *Host) RevisionCores() ([]string, error) {
	b := h.hooksHost()
	if b.Core.Version == nil {
		return nil, nil
	}
	r, err := corerepo.Open(b.StateDir)
	if err != nil {
		return nil, err
	}
	return r.Cores(b.Core.Version.Commit)
}

func (b *Host) openCoreHost(id string) (*Host, error) {
	return b.openCoreHostIn(id, b.Workspace.Root)
}

// openCoreHostIn opens core id's host in workspace: the parent's for a
// child of another core, a run's work tree for an evolver.
func (b *Host) openCoreHostIn(id, workspace string) (*Host, error) {
	commit := b.Core.Version.Commit
	cores, err := b.RevisionCores()
	if err != nil {
		return nil, fmt.Errorf("core_id %q: the core repository could not be read: %w", id, err)
	}
	// Only an exact id of the revision: no case folding, no path forms.
	if !slices.Contains(cores, id) || corerepo.ValidCoreID(id) != nil {
		return nil, fmt.Errorf("%w %q: the core repository's revision %s holds %s", ErrUnknownCore, id, shortID(commit), strings.Join(cores, ", "))
	}
	r, err := corerepo.Open(b.StateDir)
	if err != nil {
		return nil, err
	}
	release, err := corepath.Use(b.StateDir, commit)
	if err != nil {
		return nil, err
	}
	c, err := loadCommit(r, commit, id)
	if err != nil {
		release()
		return nil, fmt.Errorf("core_id %q does not load: %w", id, err)
	}
	opts := b.opts
	opts.CoreDir, opts.CoreID = "", id
	opts.Workspace = workspace // never the core's own
	opts.Approver = nil
	h, err := openCore(c, opts)
	if err != nil {
		release()
		return nil, fmt.Errorf("core_id %q does not load: %w", id, err)
	}
	h.base, h.tasks, h.releaseCore = b, b.tasks, release
	// The tighter of the base's sandbox (the operator's mode and the base
	// core's) and the other core's: a child never runs looser than its
	// parent's core, nor than its own. Both cores are files of the same
	// commit's copy, which the base's protects.
	own := h.Sandbox
	h.Sandbox = b.Sandbox
	h.Sandbox.Mode = sandbox.Tighter(b.Sandbox.Mode, own.Mode)
	h.Sandbox.Require = b.Sandbox.Require || own.Require
	sb, ws := h.Sandbox, h.Workspace.Root
	h.Plugins.SetLaunchCheck(func(p string) string { return sb.LaunchRefusal(p, ws) })
	h.Approvals.Rules = narrowerRules(b.Approvals.Rules, h.Approvals.Rules, filepath.Base(c.File))
	return h, nil
}

// narrowerRules are base's rules plus the other core's own prompt and
// deny rules: a core's allow rules would approve what base asks about.
func narrowerRules(base, other []approval.Rule, coreOrigin string) []approval.Rule {
	out := slices.Clone(base)
	for _, r := range other {
		if r.Origin == coreOrigin && r.Action != approval.RuleAllow {
			out = append(out, r)
		}
	}
	return out
}

func (c *coreHosts) close() {
	c.mu.Lock()
	hosts := c.byID
	c.byID, c.closed = nil, true
	c.mu.Unlock()
	for _, h := range hosts {
		_ = h.Close()
	}
}

// Host is the host s runs on: a core host for a child of another core.
func (s *Session) Host() *Host { return s.h }
