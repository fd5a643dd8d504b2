package approval

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"

	"go.yaml.in/yaml/v3"
)

// OriginOperatorFile is the Origin of the rules of the operator's
// approvals file: standing rules that, like --approve, are the operator's
// own (Explicit), because nothing but the operator can write that file.
const OriginOperatorFile = "approvals.yaml"

// OperatorFileName is the approvals file's name in the host's
// configuration directory ($XDG_CONFIG_HOME/demiurge).
const OperatorFileName = "approvals.yaml"

const operatorFileMax = 64 << 10

// OperatorFile is the operator's approvals file: the user's configuration
// directory (outside every core and workspace, like the MCP private
// allowance), "" when there is none.
func OperatorFile() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "demiurge", OperatorFileName)
}

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
	if file == "" {
		return nil, nil
	}
	f, err := os.OpenFile(file, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if errors.Is(err, os.ErrNotExist) {
		return nil, nil // no file, no rules, wherever it would be
	}
	if err == nil {
		if perr := operatorFilePlace(file, off); perr != nil {
			f.Close()
			return nil, perr
		}
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w (it must be a regular file, not a symlink)", file, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if err := ownedByUser(file, fi, false); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, operatorFileMax+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %w", file, err)
	}
	if len(data) > operatorFileMax {
		return nil, fmt.Errorf("%s is over %d bytes", file, operatorFileMax)
	}
	var doc operatorDoc
	dec := yaml.NewDecoder(strings.NewReader(string(data)))
	dec.KnownFields(true)
	if err := dec.Decode(&doc); err != nil && !errors.Is(err, io.EOF) {
		return nil, fmt.Errorf("%s: %v (want approve: a list of rules, such as allow:mcp_connect__fs)", file, err)
	}
	return doc.Approve, nil
}

// operatorFilePlace refuses a location an agent can reach: inside one of
// off, or under a directory that someone else may write.
func operatorFilePlace(file string, off []string) error {
	if !filepath.IsAbs(file) {
		return fmt.Errorf("the approvals file %q must be an absolute path", file)
	}
	real := file
	if r, err := filepath.EvalSymlinks(filepath.Dir(file)); err == nil {
		real = filepath.Join(r, filepath.Base(file))
	}
	for _, d := range off {
		if d == "" {
			continue
		}
		rd := d
		if r, err := filepath.EvalSymlinks(d); err == nil {
			rd = r
		}
		if within(file, d) || within(real, rd) || within(real, d) || within(file, rd) {
			return fmt.Errorf("the approvals file %s lies inside %s, where an agent may write; it must be outside every workspace, core and state directory", file, d)
		}
	}
	for dir := filepath.Dir(real); ; dir = filepath.Dir(dir) {
		fi, err := os.Stat(dir)
		if err == nil {
			if err := ownedByUser(dir, fi, true); err != nil {
				return err
			}
		}
		if dir == filepath.Dir(dir) || dir == filepath.Dir(filepath.Dir(real)) {
			break // the file's directory and its parent: the rest is the system's
		}
	}
	return nil
}

// ownedByUser refuses what another user owns or may write (a directory
// with the sticky bit, like /tmp, is still refused: others may create in
// it).
func ownedByUser(path string, fi os.FileInfo, dir bool) error {
	st, _ := fi.Sys().(*syscall.Stat_t)
	switch {
	case !dir && !fi.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file", path)
	case fi.Mode().Perm()&0o022 != 0:
		return fmt.Errorf("%s is writable by others (mode %v); only its owner may write it: chmod go-w %s", path, fi.Mode().Perm(), path)
	case st != nil && int(st.Uid) != os.Getuid():
		return fmt.Errorf("%s is not owned by the user running demiurge", path)
	}
	return nil
}

func within(p, dir string) bool {
	rel, err := filepath.Rel(filepath.Clean(dir), filepath.Clean(p))
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
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
	if err := operatorFilePlace(file, off); err != nil {
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
