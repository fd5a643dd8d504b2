// Package toolhost assembles a running host from its parts: the agent
// core, the toolset plugins, the workspace, the authority and the approval
// resolver, and hands out per-turn catalogs and dispatch turns.
package toolhost

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"os"
	"os/user"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"sync"
	"time"

	"github.com/hashicorp/go-hclog"

	"demiurge.dev/catalog"
	"demiurge.dev/host/approval"
	"demiurge.dev/host/catalogsnap"
	"demiurge.dev/host/core"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/mcp"
	"demiurge.dev/host/packages"
	"demiurge.dev/host/packages/installed"
	"demiurge.dev/host/pipeline"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/policy"
	"demiurge.dev/host/runtime"
	"demiurge.dev/host/sandboxing"
)

// Options configure a host.
type Options struct {
	// CoreDir holds agent.yaml (a plain, unversioned core); "" runs CoreID
	// of the core repository under StateDir (toolhost/corerepo.go).
	CoreDir string
	// CoreID names a core of the repository; "" is core.DefaultID.
	CoreID string
	// Workspace is the session's workspace; "" uses the core's, else the
	// current directory.
	Workspace string
	// StateDir holds the store, caches, installed plugins and artifacts.
	StateDir string
	// BuiltinPluginDir holds the built-in plugins (beside the binary).
	BuiltinPluginDir string
	// Approver answers prompts; nil means nobody can answer (deny).
	Approver approval.Provider
	// Timezone is the IANA zone terminal commands run in (TZ), "" for the
	// host's own; Open refuses a zone the system does not know.
	Timezone string
	// Rules are --approve flags, in the approval rule syntax.
	Rules []string
	// ApprovalsFile is the operator's approvals file (approval.OperatorFile):
	// standing rules as explicit as --approve; "" for none.
	ApprovalsFile string
	// GrantsFile is the operator's path-scoped grants file
	// (policy.PathGrantsFile): capabilities for authored tools and slots by
	// their path in the core; "" for none.
	GrantsFile string
	Principal  string
	Logger     hclog.Logger
	// OutputCap bounds each output stream's artifact of one call, and
	// ArtifactBudget all indexed artifacts, in bytes; 0 means the
	// defaults (terminal.DefaultOutputCap, runtime.DefaultArtifactBudget).
	OutputCap      int64
	ArtifactBudget int64
	// CallTimeout bounds each authored and MCP tool call (the operator's
	// --call-timeout); 0 is DefaultCallTimeout.
	CallTimeout time.Duration

	// Sandbox is the operator's --sandbox mode ("" for the default).
	Sandbox string
	// MCPPrivate are the operator's --allow-private-mcp allowances, and
	// MCPPrivateFile the host configuration file of more
	// (mcp.PrivateConfigFile; "" for none). Its directory is protected
	// like the state directory.
	MCPPrivate     []mcp.PrivateAllowance
	MCPPrivateFile string
}

// Host is one running host process's view of its core and tools.
type Host struct {
	// freshCatalogs is the last catalog a fresh session resolved, handed
	// to the next fresh session of the same inputs (catalog_cache.go).
	freshCatalogs sharedCatalog

	Core      *core.Core
	Plugins   *plugins.Manager
	Workspace policy.Workspace
	Approvals *approval.Resolver
	StateDir  string
	// Packages are the provider packages installed in this core.
	Packages *installed.Active
	// Sandbox is the OS sandbox of the commands the host runs.
	Sandbox sandboxing.Config

	mcpHost // MCP servers of slots.mcp (mcp.go)

	// pathGrants are this core's grants of the operator's path-scoped
	// grants file, pathGrantsDigest the file's (pathgrants.go).
	pathGrants       policy.CoreGrants
	pathGrantsDigest string
	// rootAuthority is what every session the host starts or resumes runs
	// under, but for the session id (sessions.go).
	rootAuthority policy.Authority
	sessions      sessions

	// callTimeout is Options.CallTimeout.
	callTimeout time.Duration
	timezone    string // Options.Timezone

	storeOnce sync.Once
	store     *runtime.Store
	storeErr  error
	// tasks is the host's task manager; a core host (corehost.go) shares
	// its base's.
	tasks   *hostTasks
	history hostHistory

	outputCap, artifactBudget int64
	// releaseCore ends the mark that keeps the core's read-only copy from
	// being collected (loadCore).
	releaseCore func()

	// spawnGate is the spawn gate of delegate_task (spawnhook.go).
	spawnMu   sync.Mutex
	spawnGate SpawnGate
	// evolver runs evolve_core start's evolver (evolvecore.go).
	evolver Evolver
	// agentTasks answers ctx.agents handles (spawnhook.go).
	agentTasks AgentTasks
	// schedules answers schedule_manage (schedulehook.go).
	schedules ScheduleManager

	// opts are what the host was opened with (corehost.go opens the
	// hosts of other cores with them).
	opts Options
	// base is the host a core host was opened from: its store, tasks and
	// spawn gate are base's (corehost.go). Nil for an opened host.
	base *Host
	// coreHosts are the hosts of other cores of this host's revision,
	// opened for children on first use (corehost.go).
	coreHosts coreHosts
}

// InstalledPluginDir is where package install puts plugin binaries.
func InstalledPluginDir(stateDir string) string { return filepath.Join(stateDir, "plugins") }

// Open assembles a host. It starts no plugin.
func Open(opts Options) (*Host, error) {
	if opts.StateDir == "" {
		return nil, errors.New("no state directory given")
	}
	if err := os.MkdirAll(opts.StateDir, 0o700); err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	c, release, err := loadCore(opts.CoreDir, opts.CoreID, opts.StateDir)
	if err != nil {
		return nil, err
	}
	h, err := openCore(c, opts)
	if err != nil {
		release()
		return nil, err
	}
	h.releaseCore = release
	return h, nil
}

// openCore assembles a host around a loaded core (Open, and the gates,
// which check a candidate commit's cores).
func openCore(c *core.Core, opts Options) (*Host, error) {
	if err := pipeline.CheckRunnable(c); err != nil {
		return nil, err
	}
	home := filepath.Join(opts.StateDir, "runtime", "home")
	if err := os.MkdirAll(home, 0o700); err != nil {
		return nil, fmt.Errorf("state directory: %w", err)
	}
	if opts.Timezone != "" {
		if _, err := time.LoadLocation(opts.Timezone); err != nil || opts.Timezone == "Local" {
			return nil, fmt.Errorf("timezone %q: not a zone this system knows (an IANA name such as Europe/Berlin or UTC)", opts.Timezone)
		}
	}
	pkgs, err := installed.ForCore(opts.StateDir, c)
	if err != nil {
		return nil, err
	}
	pm, err := plugins.New(plugins.Config{
		Dirs: append([]plugins.Dir{
			{Path: opts.BuiltinPluginDir, Origin: plugins.OriginBuiltin},
			{Path: InstalledPluginDir(opts.StateDir), Origin: plugins.OriginInstalled},
		}, pkgs.PluginDirs()...),
		CacheDir: filepath.Join(opts.StateDir, "cache", "describe"),
		// VerifiedDir: which binaries were hashed, by file identity.
		VerifiedDir: filepath.Join(opts.StateDir, "cache", "verified-images"),
		Home:        home, StateDir: opts.StateDir, Logger: opts.Logger,
		Inputs: authoredInputs(c),
	})
	if err != nil {
		return nil, err
	}
	if c.SkillsRoot, err = defaultSkillsRoot(c, opts.StateDir); err != nil {
		pm.Close()
		return nil, err
	}
	h := &Host{Core: c, Plugins: pm, StateDir: opts.StateDir, Packages: pkgs, outputCap: opts.OutputCap, artifactBudget: opts.ArtifactBudget, callTimeout: opts.CallTimeout, timezone: opts.Timezone, tasks: &hostTasks{}, opts: opts}
	pm.SetEgressAudit(h.recordPluginEgress) // each connection a confined plugin makes
	if err := h.assemble(opts); err != nil {
		pm.Close()
		return nil, err
	}
	if h.Sandbox, err = sandboxConfig(c, opts.Sandbox, opts.BuiltinPluginDir, opts.StateDir, h.Workspace.Root); err != nil {
		pm.Close()
		return nil, err
	}
	sb, ws := h.Sandbox, h.Workspace.Root
	pm.SetLaunchCheck(func(p string) string { return sb.LaunchRefusal(p, ws) })
	return h, nil
}

func (h *Host) assemble(opts Options) error {
	c := h.Core
	for _, ts := range c.Toolsets {
		if !h.Plugins.Has(ts) {
			return fmt.Errorf("%s: toolset %s needs the plugin %s%s, which is not built or installed: run `make build` for the built-in toolsets, or `demiurge plugins install PATH` for one of your own", c.File, ts, plugins.BinaryPrefix, ts)
		}
	}
	if err := h.checkAuthored(); err != nil {
		return err
	}
	ws := opts.Workspace
	if ws == "" {
		ws = c.Workspace
	}
	if ws == "" {
		var err error
		if ws, err = os.Getwd(); err != nil {
			return err
		}
	}
	st, err := os.Stat(ws)
	if err != nil || !st.IsDir() {
		return fmt.Errorf("workspace %s is not a directory", ws)
	}
	if h.Workspace, err = policy.NewWorkspace(ws); err != nil {
		return err
	}
	h.Workspace.Guard(protectedCore(c), opts.StateDir)
	h.Plugins.SetWorkDir(h.Workspace.Root) // a relative path a plugin opens is the one checked
	// A toolset plugin installed by path that writes the workspace holds
	// what a command's sandbox holds there (sandboxConfig: the same lists).
	h.Plugins.SetHeld(slices.Concat(coreProtected(c, h.Workspace.Root), sandboxing.HostOwnedPaths(opts.BuiltinPluginDir, opts.StateDir)))
	h.Workspace.SkillsRoot = c.SkillsRoot
	if err := h.loadPrivateMCP(opts); err != nil {
		return err
	}
	caps, err := policy.NewCapabilitySet(c.Capabilities)
	if err != nil {
		for i, g := range c.Capabilities { // name the grant's line
			if gerr := policy.ValidateCapability(g); gerr != nil {
				return c.CapabilityError(i, gerr)
			}
		}
		return fmt.Errorf("%s: capabilities: %w", c.File, err)
	}
	if err := checkSlotCapabilities(c); err != nil {
		return err
	}
	if err := h.loadPathGrants(opts); err != nil {
		return err
	}
	var rules []approval.Rule
	for _, spec := range c.Approvals {
		r, err := approval.ParseRule(spec)
		if err != nil {
			return fmt.Errorf("%s: approvals: %w", c.File, err)
		}
		r.Origin = filepath.Base(c.File)
		rules = append(rules, r)
	}
	for _, spec := range opts.Rules {
		r, err := approval.ParseRule(spec)
		if err != nil {
			return fmt.Errorf("--approve %q: %w", spec, err)
		}
		r.Origin = "--approve"
		rules = append(rules, r)
	}
	fromFile, err := approval.LoadOperatorFile(opts.ApprovalsFile, h.Workspace.Root, c.Dir, opts.StateDir)
	if err != nil {
		return err
	}
	rules = append(rules, fromFile...)
	provider := opts.Approver
	if provider == nil {
		provider = approval.DenyAll{}
	}
	// The approvals file is read again at each decision (when it
	// changed): a long-lived host honours a rule the operator removed
	// from the next call on.
	live := &approval.LiveOperatorFile{File: opts.ApprovalsFile, Off: []string{h.Workspace.Root, c.Dir, opts.StateDir}}
	h.Approvals = &approval.Resolver{Provider: provider, Rules: rules, Sessions: approval.NewSessionAllows(approval.DefaultSessionTTL), OperatorFile: live}
	h.rootAuthority = policy.Authority{
		Principal: principal(opts.Principal), CoreRevision: c.Revision,
		Capabilities: caps, PolicyFingerprint: policyFingerprint(c, opts.Rules, h.pathGrantsDigest),
	}
	h.NewSession()
	return nil
}

// Principal is the principal a host started with given (--principal, ""
// for the local user's) runs its sessions under.
func Principal(given string) string { return principal(given) }

func principal(given string) string {
	if given != "" {
		return given
	}
	if u, err := user.Current(); err == nil {
		return "local:" + u.Username
	}
	return "local"
}

// policyFingerprint binds session allows to the effective policy: any
// change of overrides or rules makes earlier allows inapplicable.
func policyFingerprint(c *core.Core, rules []string, grants string) string {
	h := sha256.New()
	fmt.Fprintf(h, "core=%s\n", c.Revision)
	fmt.Fprintf(h, "path-grants=%s\n", grants)
	names := make([]string, 0, len(c.Metadata))
	for n := range c.Metadata {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(h, "meta=%s:%+v\n", n, c.Metadata[n])
	}
	for _, r := range append(append([]string(nil), c.Approvals...), rules...) {
		fmt.Fprintf(h, "rule=%s\n", r)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func newID(prefix string) string {
	var b [10]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// toolsets are the plugins this core uses: the toolsets it declares
// (built-in or installed). The embedded default core, which no one can
// edit, also gets every installed plugin: installing one is the
// operator's explicit choice to add it. A core directory gets only what
// its toolsets: names, and the provider packages installed into it.
func (h *Host) toolsets() []plugins.Candidate {
	declared := map[string]bool{}
	for _, ts := range h.Core.Toolsets {
		declared[ts] = true
	}
	embedded := h.Core.IsDefault()
	var out []plugins.Candidate
	for _, c := range h.Plugins.Candidates() {
		// A provider package is installed into this core (its lock names
		// the core), so it is the core's own choice already.
		_, pkg := h.Packages.Package(c.Name)
		if declared[c.Name] || pkg || (embedded && c.Origin == plugins.OriginInstalled) || h.usesAuthored(c) {
			out = append(out, c)
		}
	}
	return out
}

// Catalog resolves this turn's catalog for the current session.
func (h *Host) Catalog(ctx context.Context) (*catalog.Catalog, error) {
	return h.Session().Catalog(ctx)
}

// catalogFor resolves s's catalog: one Describe per plugin (cached while
// binaries are unchanged), s's MCP servers, s's tool selection, then one
// resolution. With o.Tool named, only the MCP servers that can offer it
// are resolved (connected or asked about): the operator's call of one
// tool; "" resolves every one, as a turn's listing needs.
func (h *Host) catalogFor(ctx context.Context, s *Session, o TurnOptions) (*catalog.Catalog, error) {
	key := h.catalogKeyFor(s)
	cat, warnings, ok := s.catalogs.lookup(key)
	fresh := h.freshKeyFor(s, key)
	if !ok && fresh != nil {
		if cat, warnings, ok = h.freshCatalogs.lookup(fresh); ok {
			s.catalogs.store(key, cat, warnings)
		}
	}
	if ok {
		s.mu.Lock()
		s.warnings = warnings
		s.mu.Unlock()
		return cat, nil
	}
	cat, warnings, whole, err := h.resolveCatalog(ctx, s, o)
	// With a tool named, only the MCP servers that may offer it were
	// resolved: not the session's whole catalog.
	whole = whole && (o.Tool == "" || h.Core.MCPRoot == "")
	if err == nil && whole && key != nil {
		s.catalogs.store(key, cat, warnings)
		// A catalog with deferred tools holds the session's activations:
		// never another session's.
		if fresh != nil && cat.Disclosure() == nil {
			h.freshCatalogs.store(fresh, cat, warnings)
		}
	}
	return cat, err
}

// resolveCatalog resolves s's catalog; whole is false when a plugin was
// left out (it may start next time without any file changing).
func (h *Host) resolveCatalog(ctx context.Context, s *Session, o TurnOptions) (_ *catalog.Catalog, _ []string, whole bool, _ error) {
	cands := h.toolsets()
	names := make([]string, len(cands))
	for i, c := range cands {
		names[i] = c.Name
	}
	descs, errs := h.Plugins.DescribeAll(ctx, names)
	whole = len(errs) == 0
	var sources []catalog.Source
	var warnings []string
	for _, c := range cands {
		if err := errs[c.Name]; err != nil {
			// A toolset the core declares is required; an installed
			// plugin that cannot start is left out, and said so, so that
			// one broken package does not take every tool away.
			if c.Origin != plugins.OriginInstalled {
				return nil, nil, false, err
			}
			warnings = append(warnings, fmt.Sprintf("installed toolset %s is left out of the catalog: %v", c.Name, err))
			continue
		}
		src, w := pluginSource(c, descs[c.Name], packages.Bind(h.Packages, c, dispatch.PluginAdapter{Manager: h.Plugins, Toolset: c.Name}, h.Store))
		src = withSkillTools(src, c, h.Core.SkillsRoot)
		src, declared := packages.KeepDeclared(h.Packages, c, src)
		w = append(w, declared...)
		if h.usesAuthored(c) {
			src = asAuthored(src, descs[c.Name])
			src.Binding = withCallTimeout(src.Binding.(dispatch.Adapter), h.callTimeout)
		}
		warnings = append(warnings, w...)
		sources = append(sources, src)
	}
	sources, warnings = h.addMCP(ctx, s, o, sources, warnings)
	if src, ok := editorSource(s.theEditor(), commandsUnconfined(h.Sandbox)); ok {
		sources = append(sources, src)
	}
	warnings = append(warnings, h.Packages.Problems...)
	warnings = append(warnings, h.unusedGrantWarnings(sources)...)
	deferred := h.deferredNames(sources)
	var pool []catalog.CapabilityCandidate
	if len(deferred) == 0 {
		sources = withoutSearch(sources)
	} else {
		pool = deferredPool(sources, deferred) // before a child's projection
	}
	if s.tools != nil {
		sources = selectTools(sources, s.tools)
	}
	cat, err := catalog.Resolve(sources, h.Core.Metadata)
	if err == nil {
		var w []string
		cat, w = h.disclose(s, cat, deferred, pool)
		warnings = append(warnings, w...)
		if h.Approvals != nil {
			warnings = append(warnings, pathlessRuleWarnings(cat, h.Approvals.Rules)...)
		}
	}
	s.mu.Lock()
	s.warnings = warnings
	s.mu.Unlock()

	// Best effort: without a snapshot the launcher hands tools list to this
	// host. A core the snapshot cannot describe is not asked for the
	// catalog's fingerprint, which costs an encoding of every entry; a
	// child's narrowed catalog is never the host's listing.
	if err == nil && s.parent == nil && catalogsnap.Uncacheable(h.Core) == "" {
		_ = catalogsnap.Record(h.StateDir, h.Core, h.Plugins.Candidates(), sources, warnings, cat.Fingerprint())
	}
	if err == nil {
		// The model is offered only what it can call (the snapshot above
		// keeps every tool; the launcher narrows it the same way).
		cat = cat.WithHostGrants(h.authoredToolGrants).Callable(s.authority.Capabilities.Has)
	}
	var ce *catalog.CollisionError
	if errors.As(err, &ce) {
		stage := "core loading failed"
		if ce.InvolvesMCP {
			stage = "catalog building failed"
		}
		return nil, nil, false, fmt.Errorf("%s: %w", stage, err)
	}
	return cat, warnings, whole, err
}

// selectTools keeps the tools a delegated child was given.
func selectTools(sources []catalog.Source, keep map[string]bool) []catalog.Source {
	out := make([]catalog.Source, 0, len(sources))
	for _, src := range sources {
		var tools []catalog.ToolSpec
		for _, t := range src.Tools {
			if keep[t.Name] {
				tools = append(tools, t)
			}
		}
		src.Tools = tools
		out = append(out, src)
	}
	return out
}

// Store opens the runtime store on first use.
func (h *Host) Store() (*runtime.Store, error) {
	if h.base != nil {
		return h.base.Store()
	}
	h.storeOnce.Do(func() {
		if BeforeStoreOpen != nil {
			if h.storeErr = BeforeStoreOpen(h.StateDir); h.storeErr != nil {
				return
			}
		}
		h.store, h.storeErr = runtime.Open(filepath.Join(h.StateDir, "demiurge.db"))
	})
	return h.store, h.storeErr
}

// ArtifactRoot is the current session's private artifact directory.
func (h *Host) ArtifactRoot() string { return h.Session().ArtifactRoot() }

// Warnings are the findings of the host session's last catalog.
func (h *Host) Warnings() []string { return h.Session().Warnings() }

// GrantsFile is the operator's grants file the host was opened with
// (Options.GrantsFile), for messages that point to it.
func (h *Host) GrantsFile() string { return h.opts.GrantsFile }

// NewTurn makes a dispatch turn of the current session.
func (h *Host) NewTurn(ctx context.Context) (*dispatch.Turn, error) {
	return h.Session().NewTurn(ctx)
}

// NewToolTurn is the current session's NewToolTurn: a turn for the
// operator's call of the one tool named.
func (h *Host) NewToolTurn(ctx context.Context, tool string) (*dispatch.Turn, error) {
	return h.Session().NewToolTurn(ctx, tool)
}

// Close stops the plugins and closes the store.
func (h *Host) Close() error {
	if h.base == nil { // a core host's tasks are its base's
		h.closeTasks() // through the cancel path, while plugins and store still run
	}
	h.endSessions()
	h.coreHosts.close()
	h.Plugins.Close()
	h.closeHistory()
	if h.releaseCore != nil {
		h.releaseCore() // the core's copy may be collected now
	}
	if h.store != nil {
		return h.store.Close()
	}
	return nil
}

// checkSlotCapabilities refuses a slot.yaml naming a capability the host
// does not know, at its line: a typo would otherwise be a gate nothing
// passes, or a grant nothing asks for, with no word said.
func checkSlotCapabilities(c *core.Core) error {
	ids := slices.Sorted(maps.Keys(c.Slots))
	for _, id := range ids {
		s := c.Slots[id]
		if s.Capability != "" {
			if err := policy.ValidateCapability(s.Capability); err != nil {
				return s.CapabilityError(-1, err)
			}
		}
		for i, g := range s.Capabilities {
			if err := policy.ValidateCapability(g); err != nil {
				return s.CapabilityError(i, err)
			}
		}
	}
	return nil
}

// ToolDetail is `tools show`'s text for e: the catalog's detail, with how
// the host confines the plugin behind it (a plugin installed by path, an
// installed package's) after its source.
func (h *Host) ToolDetail(e *catalog.Entry) string {
	d := e.Detail()
	if e.Spec.Provenance.Kind != catalog.SourceInstalled {
		return d
	}
	conf := h.Plugins.Confinement(e.Spec.Provenance.Toolset)
	if conf == "" {
		return d
	}
	before, after, ok := strings.Cut(d, "\n  effect:")
	if !ok {
		return d + fmt.Sprintf("  %-20s %s\n", "confinement:", conf)
	}
	return before + fmt.Sprintf("\n  %-20s %s", "confinement:", conf) + "\n  effect:" + after
}
