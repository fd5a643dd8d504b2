package packages

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// ArchiveSuffix ends every package archive's file name.
const ArchiveSuffix = ".tar.gz"

// Source is a directory of package archives, as `make build` writes them
// beside the demiurge binary: <name>.tar.gz with its sha256 recorded in
// <name>.tar.gz.sha256.
type Source struct {
	Dir string
}

// Available is one package a source offers.
type Available struct {
	Name     string   `json:"name"`
	Version  string   `json:"version,omitempty"`
	Slot     string   `json:"slot,omitempty"`
	Tools    []string `json:"tools,omitempty"`
	Archive  string   `json:"archive"`
	SHA256   string   `json:"sha256,omitempty"`
	Problem  string   `json:"problem,omitempty"`
	manifest *Manifest
}

// List reads the manifests of the source's archives (only the first entry
// of each). An archive that cannot be read is listed with its problem.
func (s Source) List() ([]Available, error) {
	entries, err := os.ReadDir(s.Dir)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("list packages in %s: %w", s.Dir, err)
	}
	var out []Available
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ArchiveSuffix)
		if !ok || e.IsDir() || !namePattern().MatchString(name) {
			continue
		}
		out = append(out, s.describe(name))
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

func (s Source) describe(name string) Available {
	a := Available{Name: name, Archive: filepath.Join(s.Dir, name+ArchiveSuffix)}
	var err error
	if a.SHA256, err = readSum(a.Archive + ".sha256"); err != nil {
		a.Problem = err.Error()
		return a
	}
	m, err := readManifest(a.Archive)
	switch {
	case err != nil:
		a.Problem = err.Error()
	case m.Name != name:
		a.Problem = fmt.Sprintf("%s names package %q", a.Archive, m.Name)
	default:
		a.Version, a.Slot, a.Tools, a.manifest = m.Version, m.Slot, m.Tools, m
	}
	return a
}

// UnknownPackageError says no source offers a package of that name.
type UnknownPackageError struct {
	Name      string
	Available []string
}

func (e *UnknownPackageError) Error() string {
	if len(e.Available) == 0 {
		return fmt.Sprintf("no package %q: no package sources hold any package (run make build, or give the path of a package archive with --sha256)", e.Name)
	}
	return fmt.Sprintf("no package %q; available: %s (or give the path of a package archive with --sha256)", e.Name, strings.Join(e.Available, ", "))
}

// find looks a package up by name in the sources, in order.
func find(sources []Source, name string) (Available, error) {
	var names []string
	for _, s := range sources {
		list, err := s.List()
		if err != nil {
			return Available{}, err
		}
		for _, a := range list {
			if a.Name == name {
				if a.Problem != "" {
					return Available{}, fmt.Errorf("package %s cannot be installed: %s", name, a.Problem)
				}
				return a, nil
			}
			names = append(names, a.Name)
		}
	}
	return Available{}, &UnknownPackageError{Name: name, Available: names}
}

// readSum reads a sha256sum-format file: "<hex>  <file name>".
func readSum(path string) (string, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return "", fmt.Errorf("no recorded sha256 (%s is missing): rebuild with make", filepath.Base(path))
	}
	if err != nil {
		return "", err
	}
	defer f.Close()
	line, _ := bufio.NewReader(f).ReadString('\n')
	sum, _, _ := strings.Cut(strings.TrimSpace(line), " ")
	if !isSHA256(sum) {
		return "", fmt.Errorf("%s: %q is not a sha256", path, sum)
	}
	return strings.ToLower(sum), nil
}

func isSHA256(s string) bool {
	b, err := hex.DecodeString(s)
	return err == nil && len(b) == 32
}
