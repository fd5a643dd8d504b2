package manifest

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
)

// MaxTools bounds the authored tools of one core.
const MaxTools = 1000

// Tool is one discovered authored tool.
type Tool struct {
	// ID is the tool directory's name and the model-visible tool name.
	ID string
	// Dir is the absolute tool directory; File its tool.yaml.
	Dir, File string
	// SlotPath is Dir relative to the core directory, slash-separated
	// (agent/tools/project_note).
	SlotPath string
	// Program is the absolute path of the entrypoint's file: the Python
	// module or the executable.
	Program string
	// Digest is the sha256 of tool.yaml as it was loaded.
	Digest [32]byte
	Manifest
}

// Changed reports whether tool.yaml is no longer what was loaded (edited,
// removed, unreadable). The host's policy for the tool was resolved from
// the loaded declaration, so a call must not run under a changed one.
func (t *Tool) Changed() bool {
	data, err := readManifest(t.File)
	return err != nil || sha256.Sum256(data) != t.Digest
}

var toolName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]{0,63}$`)

// Discover loads every agent/tools/<tool_id>/tool.yaml under root. A
// directory without tool.yaml is not a tool (a helper package, say) and is
// skipped, as are hidden and dunder directories (.git, __pycache__). Every
// broken tool is reported, not only the first.
func Discover(root, coreDir string) ([]Tool, error) {
	tools, problems, err := DiscoverEach(root, coreDir)
	if err != nil {
		return nil, err
	}
	if len(problems) > 0 {
		return nil, errors.Join(problems...)
	}
	return tools, nil
}

// DiscoverEach is Discover that keeps the tools that load beside the
// problems of those that do not: one broken tool.yaml leaves the others
// (and every other toolset) working. err is for the slot as a whole.
func DiscoverEach(root, coreDir string) (tools []Tool, problems []error, err error) {
	entries, err := os.ReadDir(root)
	if err != nil {
		return nil, nil, fmt.Errorf("slots.tools %s: %w", root, err)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	for _, e := range entries {
		name := e.Name()
		if !e.IsDir() || strings.HasPrefix(name, ".") || strings.HasPrefix(name, "__") {
			continue
		}
		dir := filepath.Join(root, name)
		file := filepath.Join(dir, FileName)
		if _, err := os.Lstat(file); errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if len(tools)+len(problems) >= MaxTools {
			return nil, nil, fmt.Errorf("slots.tools %s holds more than %d tools", root, MaxTools)
		}
		t, err := Load(dir, coreDir)
		if err != nil {
			problems = append(problems, err)
			continue
		}
		tools = append(tools, *t)
	}
	return tools, problems, nil
}

// Load reads one tool directory: its tool.yaml and its entrypoint.
func Load(dir, coreDir string) (*Tool, error) {
	return loadDir(dir, coreDir, FileName, Parse,
		"the tool directory %q is not a valid tool name (1-64 of A-Z a-z 0-9 _ -, not starting with a digit or -); rename the directory")
}

// loadDir reads one tool or slot directory: its manifest (file, read by
// parse) and its entrypoint; badName says what is wrong with the
// directory's name when it is no valid id.
func loadDir(dir, coreDir, fileName string, parse func([]byte, string) (*Manifest, error), badName string) (*Tool, error) {
	id := filepath.Base(dir)
	file := filepath.Join(dir, fileName)
	if !toolName.MatchString(id) {
		return nil, &Error{File: file, Msg: fmt.Sprintf(badName, clip(id))}
	}
	data, err := readManifest(file)
	if err != nil {
		return nil, err
	}
	m, err := parse(data, file)
	if err != nil {
		return nil, err
	}
	t := &Tool{ID: id, Dir: dir, File: file, Digest: sha256.Sum256(data), Manifest: *m}
	if rel, err := filepath.Rel(coreDir, dir); err == nil && coreDir != "" && !strings.HasPrefix(rel, "..") {
		t.SlotPath = filepath.ToSlash(rel)
	} else {
		t.SlotPath = filepath.ToSlash(dir)
	}
	if t.Program, err = program(dir, m.Entrypoint); err != nil {
		return nil, &Error{File: file, Field: "entrypoint", Msg: err.Error()}
	}
	return t, nil
}

func readManifest(file string) ([]byte, error) {
	st, err := os.Lstat(file)
	if err != nil {
		return nil, &Error{File: file, Msg: fmt.Sprintf("cannot read: %v", err), Err: err}
	}
	if !st.Mode().IsRegular() {
		return nil, &Error{File: file, Msg: "is not a regular file (a symlink, say); tool.yaml must be a plain file in the tool directory"}
	}
	f, err := os.Open(file)
	if err != nil {
		return nil, &Error{File: file, Msg: fmt.Sprintf("cannot read: %v", err), Err: err}
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, MaxFileSize+1))
	if err != nil {
		return nil, &Error{File: file, Msg: fmt.Sprintf("cannot read: %v", err), Err: err}
	}
	return data, nil
}

// program finds the entrypoint's file, which must lie inside the tool
// directory after symlinks are resolved: a tool runs code its core holds.
func program(dir string, ep Entrypoint) (string, error) {
	rel := ep.Path
	if ep.Kind == KindPython {
		rel = ep.Module + ".py"
	}
	p := filepath.Join(dir, filepath.FromSlash(rel))
	st, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s names %s, which does not exist in %s; create it or point entrypoint at an existing file", ep, rel, dir)
	}
	if err != nil {
		return "", fmt.Errorf("%s: %v", ep, err)
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("%s names %s, which is not a regular file", ep, rel)
	}
	real, err := filepath.EvalSymlinks(p)
	if err != nil {
		return "", fmt.Errorf("%s: %v", ep, err)
	}
	realDir, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", fmt.Errorf("%s: %v", ep, err)
	}
	if r, err := filepath.Rel(realDir, real); err != nil || r == ".." || strings.HasPrefix(r, "../") {
		return "", fmt.Errorf("%s resolves to %s, outside the tool directory; an entrypoint must lie inside it", ep, real)
	}
	if ep.Kind == KindExec && st.Mode().Perm()&0o111 == 0 {
		return "", fmt.Errorf("%s names %s, which is not executable; chmod +x it", ep, rel)
	}
	return real, nil
}
