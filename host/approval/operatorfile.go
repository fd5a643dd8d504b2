package approval

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"go.yaml.in/yaml/v3"

	"demiurge.dev/host/policy"
)

// OriginOperatorFile is the Origin of the rules of the operator's
// approvals file: standing rules that, like --approve, are the operator's
// own (Explicit), because nothing but the operator can write that file.
const OriginOperatorFile = "approvals.yaml"

// OperatorFileName is the approvals file's name in the host's
// configuration directory ($XDG_CONFIG_HOME/demiurge).
const OperatorFileName = "approvals.yaml"

// OperatorFile is the operator's approvals file: the user's configuration
// directory (outside every core and workspace, like the MCP private
// allowance), "" when there is none.
func OperatorFile() string { return policy.OperatorConfigFile(OperatorFileName) }

// operatorDoc is the file's one key.
type operatorDoc struct {
	Approve []string `yaml:"approve"`
}

// LoadOperatorFile reads the rules of the approvals file at file, refusing
// a file an agent could have written: one that is a symlink or not a
// regular file, not the user's, writable by others or in a directory
// writable by others, or that lies (as written or as its symlinks lead) in
// any of the agent-reachable directories off (the workspace, the core, the
// state directory). A missing file is no rules.
func LoadOperatorFile(file string, off ...string) ([]Rule, error) {
	specs, err := readOperatorFile(file, off)
	if err != nil {
		return nil, err
	}
	var rules []Rule
	for i, spec := range specs {
		r, err := ParseRule(spec)
		if err != nil {
			return nil, fmt.Errorf("%s: approve[%d]: %w", file, i, err)
		}
		r.Origin = OriginOperatorFile
		rules = append(rules, r)
	}
	return rules, nil
}

func readOperatorFile(file string, off []string) ([]string, error) {
	data, err := policy.ReadOperatorFile(file, operatorFileWhat, agentDirs(off))
	if err != nil || data == nil {
		return nil, err
	}
	var doc operatorDoc
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %v (want approve: a list of rules, such as allow:mcp_connect__fs)", file, err)
	}
	// One document only: the decoder reads the first and would leave the
	// rest unread, so a deny or prompt rule after a `---` (or anything
	// after `...`) would count for nothing, and approvals add would drop
	// it from the file.
	var more yaml.Node
	if err := dec.Decode(&more); !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: more than one YAML document (a `---` or `...` with more after it); only one is read, so nothing is: put every rule under one approve:", file)
	}
	return doc.Approve, nil
}

const operatorFileWhat = "approvals file"

// agentDirs are the agent-reachable directories the callers pass (the
// workspace, the core, the state directory, as each caller has them).
func agentDirs(off []string) []policy.AgentDir {
	out := make([]policy.AgentDir, len(off))
	for i, d := range off {
		out[i] = policy.AgentDir{Name: "directory", Path: d}
	}
	return out
}

// EditOperatorFile adds (add true) or removes one rule of the approvals
// file, creating it (0600, in a 0700 directory) when needed, and writes it
// whole by rename. It reports whether the file changed.
func EditOperatorFile(file, rule string, add bool, off ...string) (bool, error) {
	r, err := ParseRule(rule)
	if err != nil {
		return false, err
	}
	rule = strings.TrimSpace(rule)
	if err := policy.OperatorFilePlace(file, operatorFileWhat, agentDirs(off)); err != nil {
		return false, err
	}
	if err := os.MkdirAll(filepath.Dir(file), 0o700); err != nil {
		return false, err
	}
	specs, err := readOperatorFile(file, off)
	if err != nil {
		return false, err
	}
	i := slices.IndexFunc(specs, func(s string) bool {
		o, err := ParseRule(s)
		return err == nil && o.Action == r.Action && o.Tool == r.Tool && o.Glob == r.Glob
	})
	switch {
	case add && i >= 0, !add && i < 0:
		return false, nil
	case add:
		specs = append(specs, rule)
	default:
		specs = slices.Delete(specs, i, i+1)
	}
	b, err := yaml.Marshal(operatorDoc{Approve: specs})
	if err != nil {
		return false, err
	}
	tmp, err := os.CreateTemp(filepath.Dir(file), ".approvals-*")
	if err != nil {
		return false, err
	}
	defer os.Remove(tmp.Name())
	header := "# The operator's standing approval rules (demiurge approvals add|remove).\n# Only this user can write this file; no core, tool or agent can.\n"
	if _, err := tmp.WriteString(header + string(b)); err != nil {
		tmp.Close()
		return false, err
	}
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return false, err
	}
	if err := tmp.Close(); err != nil {
		return false, err
	}
	return true, os.Rename(tmp.Name(), file)
}

// OperatorRules are the approvals file's rule texts, for listing.
func OperatorRules(file string, off ...string) ([]string, error) {
	return readOperatorFile(file, off)
}
