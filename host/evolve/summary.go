package evolve

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"demiurge.dev/catalog"
	"demiurge.dev/host/core"
	"demiurge.dev/host/corerepo"

	"go.yaml.in/yaml/v3"
)

// Authority is what one core grants, as the review shows it: secret-safe
// (an MCP server's env and header values, its URL's user, query and path
// are never in it; only their names and the URL's host).
type Authority struct {
	Toolsets     []string          `json:"toolsets,omitempty"`
	Capabilities []string          `json:"capabilities,omitempty"`
	Approvals    []string          `json:"approvals,omitempty"`
	Metadata     map[string]string `json:"tool_metadata,omitempty"`
	Sandbox      string            `json:"sandbox,omitempty"`
	MCP          map[string]MCP    `json:"mcp,omitempty"`
	// Model is the core's `model:` block as the review shows it: provider,
	// name, the base URL's host and the name of the key's variable, never
	// the rest of the URL. Endpoint fingerprints what decides where the
	// conversation and the key go (provider, the whole base URL, the
	// variable), so a change of any of them is seen.
	Model    string `json:"model,omitempty"`
	Endpoint string `json:"model_endpoint,omitempty"`
	// Workspace is the core's declared workspace ("" when it declares
	// none): an absolute path, or "core:REL" for one inside the core's
	// own tree.
	Workspace string `json:"workspace,omitempty"`
	// UntrustedReads is tools.untrusted_reads.
	UntrustedReads bool `json:"untrusted_reads,omitempty"`
	// Authored are the authored tools (slots.tools/<id>/tool.yaml) and
	// Slots the pipeline slots by id: what each declares about its own
	// policy and the effects its worker's sandbox allows.
	Authored map[string]Declared `json:"authored_tools,omitempty"`
	Slots    map[string]Declared `json:"slots,omitempty"`
	// Pipelines are the stages as they run, by stage: the slot ids in
	// order, a parallel group in brackets. A slot in a stage runs unasked
	// on every turn and may refuse or replace what passes through (a
	// screening or redaction slot), so what runs there, in what order, is
	// authority; runs says which stage runs each slot.
	Pipelines map[string]string `json:"pipelines,omitempty"`
	runs      map[string]string
}

// Declared is an authored tool's or a slot's own policy: a slot has no
// risk or approval policy (it runs unasked), only its capabilities.
type Declared struct {
	Risk           string   `json:"risk,omitempty"`
	ApprovalPolicy string   `json:"approval_policy,omitempty"`
	Capability     string   `json:"capability,omitempty"`
	Capabilities   []string `json:"capabilities,omitempty"`
}

// toolYAML is the part of tool.yaml that is authority. The runtime's
// strict parser (plugins/authored/manifest) decides whether the tool
// exists; a file this lenient read cannot decode counts as the loosest.
type toolYAML struct {
	Risk           *string  `yaml:"risk"`
	Capability     *string  `yaml:"capability"`
	ApprovalPolicy *string  `yaml:"approval_policy"`
	Capabilities   []string `yaml:"capabilities"`
}

// readToolYAML reads a tool.yaml's policy fields from its node tree;
// false when it is not a mapping, gives a key twice, merges or aliases,
// or has a field of the wrong type. The run's tool.yaml is the evolver's writing: decoded into
// Go values, each key is checked against all before it, so 200 KiB of one
// repeated key cost minutes and gigabytes of the host (the skills index
// had the same, TestASkillsFrontMatterCannotStallTheTurn); the tree is
// built in linear time and only these four values are decoded from it.
func readToolYAML(data []byte) (toolYAML, bool) {
	var y toolYAML
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return toolYAML{}, false
	}
	if len(doc.Content) == 0 {
		return y, true // empty: the defaults
	}
	m := doc.Content[0]
	if m.Kind == yaml.ScalarNode && m.ShortTag() == "!!null" {
		return y, true
	}
	if m.Kind != yaml.MappingNode {
		return toolYAML{}, false
	}
	seen := make(map[string]bool, len(m.Content)/2)
	for i := 0; i+1 < len(m.Content); i += 2 {
		k, v := m.Content[i], m.Content[i+1]
		// A merge key or an alias would hide where a value comes from
		// (the authored loader refuses both).
		if k.Kind != yaml.ScalarNode || k.ShortTag() == "!!merge" || v.Kind == yaml.AliasNode || seen[k.Value] {
			return toolYAML{}, false
		}
		seen[k.Value] = true
		var err error
		switch k.Value {
		case "risk":
			err = v.Decode(&y.Risk)
		case "capability":
			err = v.Decode(&y.Capability)
		case "approval_policy":
			err = v.Decode(&y.ApprovalPolicy)
		case "capabilities":
			err = v.Decode(&y.Capabilities)
		}
		if err != nil {
			return toolYAML{}, false
		}
	}
	return y, true
}

// MCP is one MCP declaration in a review: its shape, never a secret value.
type MCP struct {
	Transport   string   `json:"transport"`
	Command     string   `json:"command,omitempty"`
	Host        string   `json:"host,omitempty"`
	EnvKeys     []string `json:"env_keys,omitempty"`
	HeaderKeys  []string `json:"header_keys,omitempty"`
	Capability  string   `json:"capability"`
	Sandbox     string   `json:"sandbox,omitempty"`
	Enabled     bool     `json:"enabled"`
	Fingerprint string   `json:"fingerprint"`
}

// CoreChange is one core's authority before and after a change (nil: the
// core does not exist on that side).
type CoreChange struct {
	Before *Authority `json:"before"`
	After  *Authority `json:"after"`
}

// authorities loads every core of a tree (a directory holding agents/).
func authorities(tree string) (map[string]*Authority, error) {
	ents, err := os.ReadDir(filepath.Join(tree, corerepo.AgentsDir))
	if err != nil {
		return nil, err
	}
	real, err := filepath.EvalSymlinks(tree)
	if err != nil {
		return nil, err
	}
	out := map[string]*Authority{}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		c, err := core.Load(filepath.Join(tree, corerepo.AgentsDir, e.Name()))
		if err != nil {
			return nil, err
		}
		a, err := authorityOf(c)
		if err != nil {
			return nil, err
		}
		a.Workspace = workspaceOf(c.Workspace, real)
		out[e.Name()] = a
	}
	return out, nil
}

func authorityOf(c *core.Core) (*Authority, error) {
	a := &Authority{
		Toolsets:     sortedCopy(c.Toolsets),
		Capabilities: sortedCopy(c.Capabilities),
		Approvals:    sortedCopy(c.Approvals),
		Metadata:     map[string]string{},
		MCP:          map[string]MCP{},
	}
	if c.SandboxMode != "" || c.SandboxRequire || len(c.SandboxNetworkAllow) > 0 {
		a.Sandbox = fmt.Sprintf("mode=%s require=%t", c.SandboxMode, c.SandboxRequire)
		if len(c.SandboxNetworkAllow) > 0 {
			var hosts []string
			for _, r := range c.SandboxNetworkAllow {
				hosts = append(hosts, r.String())
			}
			sort.Strings(hosts)
			a.Sandbox += " network_allow=" + strings.Join(hosts, ",")
		}
	}
	a.UntrustedReads = c.UntrustedReads
	a.Authored = authoredOf(c.ToolsRoot)
	a.Slots = map[string]Declared{}
	for id, sl := range c.Slots {
		a.Slots[id] = Declared{Capability: sl.Capability, Capabilities: sortedCopy(sl.Capabilities)}
	}
	a.Pipelines, a.runs = map[string]string{}, map[string]string{}
	for stage, groups := range map[string][]core.Group{core.StageBootstrap: c.Pipelines.Bootstrap, core.StageInput: c.Pipelines.Input, core.StageOutput: c.Pipelines.Output} {
		a.Pipelines[stage] = stageText(groups)
		for _, id := range c.Pipelines.Slots(groups) {
			a.runs[id] = stage
		}
	}
	if m := c.Model; m != nil {
		host := ""
		if u, err := url.Parse(m.BaseURL); err == nil {
			host = u.Hostname()
		}
		a.Model = fmt.Sprintf("provider=%s name=%s base_url_host=%s api_key_env=%s", m.Provider, m.Name, host, m.APIKeyEnv)
		sum := sha256.Sum256([]byte(m.Provider + "\x00" + m.BaseURL + "\x00" + m.APIKeyEnv))
		a.Endpoint = hex.EncodeToString(sum[:])
	}
	for tool, o := range c.Metadata {
		a.Metadata[tool] = overrideText(o)
	}
	if c.MCPRoot != "" {
		servers, errs := core.LoadMCPServers(c.MCPRoot)
		if len(errs) > 0 {
			return nil, fmt.Errorf("MCP server %s: %w", errs[0].ID, errs[0].Err)
		}
		for _, s := range servers {
			a.MCP[s.ID] = mcpShape(s)
		}
	}
	return a, nil
}

// stageText is a stage as the review shows it: "base_input, [a, b], c".
func stageText(groups []core.Group) string {
	parts := make([]string, 0, len(groups))
	for _, g := range groups {
		if len(g) == 1 {
			parts = append(parts, g[0])
		} else {
			parts = append(parts, "["+strings.Join(g, ", ")+"]")
		}
	}
	return strings.Join(parts, ", ")
}

// authoredOf reads the policy of every authored tool under root ("" when
// the core declares no slots.tools).
func authoredOf(root string) map[string]Declared {
	out := map[string]Declared{}
	if root == "" {
		return out
	}
	ents, err := os.ReadDir(root)
	if err != nil {
		return out
	}
	for _, e := range ents {
		if !e.IsDir() {
			continue
		}
		data, err := os.ReadFile(filepath.Join(root, e.Name(), "tool.yaml"))
		if err != nil {
			continue // no tool.yaml: no tool
		}
		d := Declared{Risk: "medium", ApprovalPolicy: "prompt"}
		y, ok := readToolYAML(data)
		if !ok {
			d.ApprovalPolicy = "unreadable"
		}
		if y.Risk != nil {
			d.Risk = *y.Risk
		}
		if y.ApprovalPolicy != nil {
			d.ApprovalPolicy = *y.ApprovalPolicy
		}
		if y.Capability != nil {
			d.Capability = *y.Capability
		}
		d.Capabilities = sortedCopy(y.Capabilities)
		out[e.Name()] = d
	}
	return out
}

// loosens says how after's own policy is looser than before's (nil:
// the tool or slot is new); "" when it is not. A new one loosens when it
// runs unasked (auto) or its worker may do more than read offline.
func loosens(before *Declared, after Declared) string {
	// catalog's lattice (auto < prompt < deny, low < medium < high): a
	// slot's "" (it is never asked) compares as deny, and what the
	// review cannot read counts as the loosest.
	approval := func(p string) catalog.ApprovalPolicy {
		if p == "" {
			return catalog.ApprovalDeny
		}
		a, err := catalog.ParseApprovalPolicy(p)
		if err != nil {
			return catalog.ApprovalAuto - 1
		}
		return a
	}
	risk := func(r string) catalog.Risk {
		v, err := catalog.ParseRisk(r)
		if err != nil {
			return catalog.RiskLow
		}
		return v
	}
	var why []string
	if before == nil {
		if approval(after.ApprovalPolicy) <= catalog.ApprovalAuto {
			why = append(why, "approval_policy "+after.ApprovalPolicy)
		}
		if len(after.Capabilities) > 0 {
			why = append(why, "capabilities "+strings.Join(after.Capabilities, ","))
		}
		return strings.Join(why, ", ")
	}
	if approval(after.ApprovalPolicy) < approval(before.ApprovalPolicy) {
		why = append(why, fmt.Sprintf("approval_policy %s -> %s", before.ApprovalPolicy, after.ApprovalPolicy))
	}
	if before.Risk != "" && risk(after.Risk) < risk(before.Risk) {
		why = append(why, fmt.Sprintf("risk %s -> %s", before.Risk, after.Risk))
	}
	if after.Capability != before.Capability {
		why = append(why, fmt.Sprintf("capability %q -> %q", before.Capability, after.Capability))
	}
	for _, c := range after.Capabilities {
		if !slices.Contains(before.Capabilities, c) {
			why = append(why, "adds capability "+c)
		}
	}
	return strings.Join(why, ", ")
}

// allowRuleFor is the first allow rule of rules naming tool ("" when none).
func allowRuleFor(rules []string, tool string) string {
	for _, r := range rules {
		if r == "allow:"+tool || strings.HasPrefix(r, "allow:"+tool+":") {
			return r
		}
	}
	return ""
}

// workspaceOf is a core's declared workspace as the review compares it:
// one inside the tree (a relative workspace resolves into the commit's
// copy, a different directory for every commit) by its place in the tree.
func workspaceOf(ws, tree string) string {
	if ws == "" {
		return ""
	}
	if rel, err := filepath.Rel(tree, ws); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
		return "core:" + filepath.ToSlash(rel)
	}
	return ws
}

func overrideText(o catalog.Override) string {
	var parts []string
	if o.Risk != nil {
		parts = append(parts, "risk="+o.Risk.String())
	}
	if o.ApprovalPolicy != nil {
		parts = append(parts, "approval_policy="+o.ApprovalPolicy.String())
	}
	if o.Capability != nil {
		parts = append(parts, "capability="+*o.Capability)
	}
	if o.Enabled != nil {
		parts = append(parts, fmt.Sprintf("enabled=%t", *o.Enabled))
	}
	if o.DisplayPolicy != nil {
		parts = append(parts, "display_policy="+*o.DisplayPolicy)
	}
	if o.ModelOutputPolicy != nil {
		parts = append(parts, "model_output_policy="+*o.ModelOutputPolicy)
	}
	return strings.Join(parts, " ")
}

// mcpShape keeps the names and never the values: env and header values
// and every part of a URL but its host may carry a secret.
func mcpShape(s core.MCPServer) MCP {
	m := MCP{Transport: s.Transport, Capability: s.CallCapability(), Sandbox: s.Sandbox, Enabled: s.Enabled, Fingerprint: s.Fingerprint}
	if s.Command != "" {
		m.Command = filepath.Base(s.Command)
	}
	if s.URL != "" {
		if u, err := url.Parse(s.URL); err == nil {
			m.Host = u.Hostname()
		}
	}
	for _, kv := range s.Env {
		m.EnvKeys = append(m.EnvKeys, kv.Key)
	}
	for _, kv := range s.Headers {
		m.HeaderKeys = append(m.HeaderKeys, kv.Key)
	}
	sort.Strings(m.EnvKeys)
	sort.Strings(m.HeaderKeys)
	return m
}

func sortedCopy(s []string) []string {
	c := slices.Clone(s)
	sort.Strings(c)
	return c
}

// compare gives each core's change (only cores whose authority changed),
// how the change widens authority, and the MCP declarations that changed
// (as "core/server before->after" fingerprints).
func compare(before, after map[string]*Authority) (changes map[string]CoreChange, widens, mcp []string) {
	changes = map[string]CoreChange{}
	ids := map[string]bool{}
	for id := range before {
		ids[id] = true
	}
	for id := range after {
		ids[id] = true
	}
	for id := range ids {
		b, a := before[id], after[id]
		if fmt.Sprint(b) != fmt.Sprint(a) {
			changes[id] = CoreChange{Before: b, After: a}
		}
		if a == nil {
			continue
		}
		empty := &Authority{}
		if b == nil {
			b = empty
			widens = append(widens, fmt.Sprintf("core %s is new", id))
		}
		for _, c := range a.Capabilities {
			if !slices.Contains(b.Capabilities, c) {
				widens = append(widens, fmt.Sprintf("core %s: grants %s", id, c))
			}
		}
		for _, ts := range a.Toolsets {
			if !slices.Contains(b.Toolsets, ts) {
				widens = append(widens, fmt.Sprintf("core %s: adds toolset %s", id, ts))
			}
		}
		for _, rule := range a.Approvals {
			if strings.HasPrefix(rule, "allow:") && !slices.Contains(b.Approvals, rule) {
				widens = append(widens, fmt.Sprintf("core %s: adds approval rule %s", id, rule))
			}
		}
		for _, rule := range b.Approvals {
			if !strings.HasPrefix(rule, "allow:") && !slices.Contains(a.Approvals, rule) {
				widens = append(widens, fmt.Sprintf("core %s: drops approval rule %s", id, rule))
			}
		}
		for tool, m := range b.Metadata {
			if a.Metadata[tool] != m {
				widens = append(widens, fmt.Sprintf("core %s: tool metadata of %s changes from %q to %q", id, tool, m, a.Metadata[tool]))
			}
		}
		if b.Sandbox != "" && a.Sandbox != b.Sandbox {
			widens = append(widens, fmt.Sprintf("core %s: sandbox changes from %q to %q", id, b.Sandbox, a.Sandbox))
		}
		// The model's endpoint and key: the conversation and the value of
		// the named variable go where the core says (dropping the block
		// leaves the choice to the operator's flags).
		if a.Endpoint != "" && a.Endpoint != b.Endpoint {
			widens = append(widens, fmt.Sprintf("core %s: model endpoint changes from %q to %q", id, b.Model, a.Model))
		}
		// The workspace bounds what file tools reach (dropping it leaves
		// the operator's --workspace or current directory).
		// What runs around every turn: a slot dropped, added, moved or
		// put beside another in a parallel group (which sees the text
		// before the other's change), and the built-in
		// project_instructions turned off.
		if b != empty {
			for _, stage := range []string{core.StageBootstrap, core.StageInput, core.StageOutput} {
				if a.Pipelines[stage] != b.Pipelines[stage] {
					widens = append(widens, fmt.Sprintf("core %s: pipeline stage %s changes from [%s] to [%s]", id, stage, b.Pipelines[stage], a.Pipelines[stage]))
				}
			}
		}
		if a.Workspace != "" && a.Workspace != b.Workspace {
			widens = append(widens, fmt.Sprintf("core %s: workspace changes from %q to %q", id, b.Workspace, a.Workspace))
		}
		if b.UntrustedReads && !a.UntrustedReads {
			widens = append(widens, fmt.Sprintf("core %s: tools.untrusted_reads is turned off", id))
		}
		// An authored tool's or slot's own policy: what runs unasked, and
		// what its worker's sandbox allows.
		for kind, pair := range map[string][2]map[string]Declared{"authored tool": {b.Authored, a.Authored}, "slot": {b.Slots, a.Slots}} {
			for name, d := range pair[1] {
				var before *Declared
				if old, ok := pair[0][name]; ok {
					before = &old
				}
				why := loosens(before, d)
				// A new tool whose name a rule of the core already allows
				// runs unasked: the rule, written for another tool of that
				// name (or none), approves its prompt.
				if rule := allowRuleFor(a.Approvals, name); before == nil && kind == "authored tool" && rule != "" {
					why = strings.TrimPrefix(why+", approved by the core's rule "+rule, ", ")
				}
				if why != "" {
					if before == nil {
						widens = append(widens, fmt.Sprintf("core %s: new %s %s (%s)", id, kind, name, why))
					} else {
						widens = append(widens, fmt.Sprintf("core %s: %s %s loosens (%s)", id, kind, name, why))
					}
				}
			}
		}
		for sid, s := range a.MCP {
			old, ok := b.MCP[sid]
			switch {
			case !ok:
				widens = append(widens, fmt.Sprintf("core %s: new MCP server %s", id, sid))
			case old.Fingerprint != s.Fingerprint:
				widens = append(widens, fmt.Sprintf("core %s: MCP server %s changes", id, sid))
			}
		}
	}
	for id := range ids {
		var b, a map[string]MCP
		if before[id] != nil {
			b = before[id].MCP
		}
		if after[id] != nil {
			a = after[id].MCP
		}
		for sid := range union(b, a) {
			if b[sid].Fingerprint != a[sid].Fingerprint {
				mcp = append(mcp, fmt.Sprintf("%s/%s %s->%s", id, sid, orNone(b[sid].Fingerprint), orNone(a[sid].Fingerprint)))
			}
		}
	}
	sort.Strings(widens)
	sort.Strings(mcp)
	return changes, widens, mcp
}

func union(a, b map[string]MCP) map[string]bool {
	u := map[string]bool{}
	for k := range a {
		u[k] = true
	}
	for k := range b {
		u[k] = true
	}
	return u
}

func orNone(s string) string {
	if s == "" {
		return "none"
	}
	return s
}

// mcpToken binds an MCP change to its exact content: the commit reviewed,
// the live it was reviewed on, and every changed declaration.
func mcpToken(on, commit string, changed []string) string {
	h := sha256.New()
	fmt.Fprintf(h, "demiurge mcp-review v1\n%s\n%s\n", on, commit)
	for _, c := range changed {
		fmt.Fprintln(h, c)
	}
	return "mcp-review:" + hex.EncodeToString(h.Sum(nil))
}
