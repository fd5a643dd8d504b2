package policy

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"

	"go.yaml.in/yaml/v3"

	"demiurge.dev/catalog"
	"demiurge.dev/host/corerepo"
	"demiurge.dev/shared/pathrules"
)

// Path-scoped host capability configuration (seed 000: a tool's singular
// capability "must be granted by core default or path-scoped Host
// capability configuration"). The operator's file grants capabilities to
// the authored tools and pipeline slots of one core by their path in it:
//
//	cores:
//	  deployer:                          # a core id of the core repository
//	    tools/deploy/**: [tool.call:deploy, secret.bind:DEPLOY_TOKEN]
//	  /home/me/cores/ops:                # a plain core directory (--core DIR)
//	    slots/**: [fs.read]
//
// Nothing a core, a tool or an agent writes can grant this way: the file
// is read with ReadOperatorFile, from the user's configuration directory.

// PathGrantsFileName is the file's name in the host's configuration
// directory.
const PathGrantsFileName = "grants.yaml"

// PathGrantsFile is the operator's grants file, "" when the user has no
// configuration directory.
func PathGrantsFile() string { return OperatorConfigFile(PathGrantsFileName) }

// PathGrants are the grants of the operator's file, by core.
type PathGrants struct {
	byCore map[string][]pathRule // core id, or a symlink-resolved absolute directory
	digest string
}

type pathRule struct {
	segments []string
	grants   []catalog.HostGrant
}

// LoadPathGrants reads the operator's grants file (ReadOperatorFile's
// checks; off are the directories an agent may write). A missing file
// grants nothing; anything malformed is an error naming file, line and
// field, never half of a file.
func LoadPathGrants(file string, off []AgentDir) (*PathGrants, error) {
	data, err := ReadOperatorFile(file, "grants file", off)
	if err != nil {
		return nil, err
	}
	g := &PathGrants{byCore: map[string][]pathRule{}}
	if data == nil {
		return g, nil
	}
	sum := sha256.Sum256(data)
	g.digest = hex.EncodeToString(sum[:])
	var doc yaml.Node
	if err := yaml.Unmarshal(data, &doc); err != nil {
		return nil, fmt.Errorf("%s: %v", file, err)
	}
	if len(doc.Content) == 0 {
		return g, nil
	}
	p := grantsParser{file: file}
	top := doc.Content[0]
	if top.Kind != yaml.MappingNode {
		return nil, p.errorf(top, "", "want a mapping with the one key cores")
	}
	for i := 0; i < len(top.Content); i += 2 {
		k, v := top.Content[i], top.Content[i+1]
		if k.Value != "cores" {
			return nil, p.errorf(k, k.Value, "unknown key; the file has the one key cores")
		}
		if err := p.cores(v, g); err != nil {
			return nil, err
		}
	}
	return g, nil
}

// Digest identifies the file's content ("" for no file), for the
// authority's policy fingerprint: other grants, other session allows.
func (g *PathGrants) Digest() string {
	if g == nil {
		return ""
	}
	return g.digest
}

// ForCore are the grants of one core: a core of the core repository by
// its id (id != ""), a plain directory core by its resolved directory.
func (g *PathGrants) ForCore(id, dir string) CoreGrants {
	if g == nil {
		return nil
	}
	if id != "" {
		return g.byCore[id]
	}
	if dir == "" {
		return nil
	}
	return g.byCore[dir]
}

// CoreGrants are the grants of one core.
type CoreGrants []pathRule

// For are the grants to the tool or slot at rel, its slash-separated path
// in the core (tools/deploy, slots/review). The match is exact and
// case-sensitive, segment by segment: a pattern names paths as the core
// spells them.
func (cg CoreGrants) For(rel string) []catalog.HostGrant {
	if rel == "" || !canonicalPath(rel) {
		return nil
	}
	name := strings.Split(rel, "/")
	var out []catalog.HostGrant
	for _, r := range cg {
		if pathrules.MatchSegments(r.segments, name) {
			out = append(out, r.grants...)
		}
	}
	return out
}

// Unmatched are the rules of cg that match none of paths (the core's
// authored tools and slots, as For takes them), each as its first grant
// (its file, line and pattern): a grant that reaches nothing, which the
// operator should hear of.
func (cg CoreGrants) Unmatched(paths []string) []catalog.HostGrant {
	names := make([][]string, 0, len(paths))
	for _, p := range paths {
		if p != "" && canonicalPath(p) {
			names = append(names, strings.Split(p, "/"))
		}
	}
	var out []catalog.HostGrant
	for _, r := range cg {
		matched := false
		for _, name := range names {
			if pathrules.MatchSegments(r.segments, name) {
				matched = true
				break
			}
		}
		if !matched && len(r.grants) > 0 {
			out = append(out, r.grants[0])
		}
	}
	return out
}

type grantsParser struct{ file string }

func (p grantsParser) errorf(n *yaml.Node, field, format string, args ...any) error {
	where := fmt.Sprintf("%s:%d", p.file, n.Line)
	if field != "" {
		where += ": " + field
	}
	return fmt.Errorf("%s: %s", where, fmt.Sprintf(format, args...))
}

func (p grantsParser) cores(n *yaml.Node, g *PathGrants) error {
	if n.Kind != yaml.MappingNode {
		return p.errorf(n, "cores", "want a mapping of core (a core id, or an absolute core directory) to its grants")
	}
	for i := 0; i < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		key, err := coreKey(k.Value)
		if err != nil {
			return p.errorf(k, "cores."+k.Value, "%v", err)
		}
		if _, dup := g.byCore[key]; dup {
			return p.errorf(k, "cores."+k.Value, "this core is named twice")
		}
		rules, err := p.rules(v, "cores."+k.Value)
		if err != nil {
			return err
		}
		g.byCore[key] = rules
	}
	return nil
}

// coreKey is a core id, or an absolute, clean directory (resolved through
// its symlinks, as the host resolves a --core directory).
func coreKey(s string) (string, error) {
	if !strings.HasPrefix(s, "/") {
		if err := corerepo.ValidCoreID(s); err != nil {
			return "", fmt.Errorf("%v, or an absolute core directory", err)
		}
		return s, nil
	}
	if filepath.Clean(s) != s {
		return "", fmt.Errorf("write the core directory in its clean form, %s", filepath.Clean(s))
	}
	if r, err := filepath.EvalSymlinks(s); err == nil {
		return r, nil
	}
	return s, nil
}

func (p grantsParser) rules(n *yaml.Node, field string) ([]pathRule, error) {
	if n.Kind != yaml.MappingNode {
		return nil, p.errorf(n, field, "want a mapping of path pattern (tools/deploy/**) to a list of capabilities")
	}
	var out []pathRule
	seen := map[string]bool{}
	for i := 0; i < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		f := field + "." + k.Value
		if err := checkGrantPattern(k.Value); err != nil {
			return nil, p.errorf(k, f, "%v", err)
		}
		if seen[k.Value] {
			return nil, p.errorf(k, f, "this pattern is written twice")
		}
		seen[k.Value] = true
		if v.Kind != yaml.SequenceNode || len(v.Content) == 0 {
			return nil, p.errorf(v, f, "want a non-empty list of capabilities, such as [secret.bind:DEPLOY_TOKEN]")
		}
		r := pathRule{segments: strings.Split(k.Value, "/")}
		for j, c := range v.Content {
			cf := fmt.Sprintf("%s[%d]", f, j)
			if c.Kind != yaml.ScalarNode || c.Tag != "!!str" {
				return nil, p.errorf(c, cf, "want a capability name")
			}
			if err := PathGrantable(c.Value); err != nil {
				return nil, p.errorf(c, cf, "%v", err)
			}
			r.grants = append(r.grants, catalog.HostGrant{Capability: c.Value, Pattern: k.Value, File: p.file, Line: c.Line})
		}
		out = append(out, r)
	}
	return out, nil
}

// checkGrantPattern accepts a relative, slash-separated pattern in its one
// canonical spelling: segments of letters, digits, '_', '-' and '.', with
// '*' inside a segment and "**" as a whole segment. Every other spelling
// (., .., empty segments, a leading or trailing slash, ?, [, {, \ escapes)
// is refused, so that a pattern means what it looks like.
func checkGrantPattern(p string) error {
	if p == "" {
		return fmt.Errorf("an empty path pattern")
	}
	for _, seg := range strings.Split(p, "/") {
		switch {
		case seg == "":
			return fmt.Errorf("path pattern %q has an empty segment (a leading, trailing or double slash); write it relative to the core, as tools/deploy/**", p)
		case seg == "." || seg == "..":
			return fmt.Errorf("path pattern %q has a %q segment; write it relative to the core without . or ..", p, seg)
		case strings.Contains(seg, "**") && seg != "**":
			return fmt.Errorf("path pattern %q: ** must be a whole segment", p)
		}
		for _, r := range seg {
			if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_' || r == '-' || r == '.' || r == '*') {
				return fmt.Errorf("path pattern %q: %q is not allowed (a pattern has letters, digits, _ - . and * only)", p, r)
			}
		}
	}
	return nil
}

// canonicalPath: a tool's path as the host computes it, never a spelling
// that could match a pattern it is not under.
func canonicalPath(rel string) bool {
	for _, seg := range strings.Split(rel, "/") {
		if seg == "" || seg == "." || seg == ".." || strings.ContainsAny(seg, "*?[\\") {
			return false
		}
	}
	return true
}

// notPathGrantable are the capabilities a grant by path may never give:
// each acts on the agent's sessions, children, core or schedules, which
// only the core's own grants (and the operator's approval) may allow.
var notPathGrantable = map[string]string{
	CapScheduleManage:         "it manages the host's schedules",
	"tool.call:delegate_task": "it starts child agents",
	"tool.call:evolve_core":   "it changes the agent's core",
	"tool.call:rollback_core": "it moves the agent's core",
	PrefixMCPConnect + ":":    "it gates an MCP server of the core, not a tool at a path",
	PrefixMCPCall + ":":       "it gates an MCP server of the core, not a tool at a path",
}

// PathGrantable checks a capability for the grants file: a valid
// capability, exactly named (no wildcard), and one a tool or slot uses for
// itself.
func PathGrantable(c string) error {
	if err := ValidateCapability(c); err != nil {
		return err
	}
	if strings.Contains(c, "*") {
		return fmt.Errorf("capability %q is refused: a grant by path names one capability exactly, never a wildcard", c)
	}
	why, ok := notPathGrantable[c]
	if prefix, _, scoped := strings.Cut(c, ":"); !ok && scoped {
		why, ok = notPathGrantable[prefix+":"]
	}
	if ok {
		return fmt.Errorf("capability %q cannot be granted by path: %s; grant it in the core's agent.yaml capabilities", c, why)
	}
	return nil
}
