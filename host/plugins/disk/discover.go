// Package disk finds toolset plugins on disk: a binary named
// demiurge-toolset-<name> with its recorded sha256 beside it. It starts
// nothing and links no gRPC, so the tools-list launcher can use it; the
// plugin manager (host/plugins) builds on it.
package disk

import (
	"bufio"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// BinaryPrefix starts the file name of every toolset plugin binary.
const BinaryPrefix = "demiurge-toolset-"

// Origin says where a plugin was found.
type Origin string

const (
	OriginBuiltin   Origin = "builtin"   // beside the demiurge binary
	OriginInstalled Origin = "installed" // under the state directory
)

// Dir is one place to look for plugins.
type Dir struct {
	Path   string
	Origin Origin
	// Package, when set, is the one toolset an installed package's
	// directory holds, and SHA256 the binary's sum its lock entry
	// recorded: that sum, not a file beside the binary that anyone who can
	// replace the binary can replace too, is what every launch and
	// `plugins verify` compare against. Nothing else in the directory is
	// a candidate.
	Package string
	SHA256  string
	// Egress are the hosts the package declared (its lock entry).
	Egress []string
}

// Candidate is a plugin binary found on disk with the checksum recorded for
// it at build or install time.
type Candidate struct {
	Name     string // toolset name: the file name without BinaryPrefix
	Path     string
	Origin   Origin
	Recorded string // hex sha256 from <binary>.sha256; "" if none
	// Package is the installed package the binary is, when it is one:
	// third-party code the host runs confined (host/plugins/confine.go).
	Package string
	// Egress are the hosts an installed package declared it reaches.
	Egress []string
	// Problem explains why the candidate cannot be used ("" if it can).
	Problem string
}

// Discover lists the plugin binaries in dirs. A name found in more than one
// directory is taken from the first; installed plugins therefore cannot
// shadow built-in ones when the built-in directory comes first.
func Discover(dirs []Dir) ([]Candidate, error) {
	seen := map[string]bool{}
	var out []Candidate
	for _, d := range dirs {
		entries, err := os.ReadDir(d.Path)
		if os.IsNotExist(err) {
			continue
		}
		if err != nil {
			return nil, fmt.Errorf("list plugins in %s: %w", d.Path, err)
		}
		for _, e := range entries {
			name, ok := strings.CutPrefix(e.Name(), BinaryPrefix)
			if !ok || name == "" || strings.Contains(name, ".") || e.IsDir() || seen[name] || (d.Package != "" && name != d.Package) {
				continue
			}
			seen[name] = true
			c := Candidate{Name: name, Path: filepath.Join(d.Path, e.Name()), Origin: d.Origin, Package: d.Package, Egress: d.Egress}
			c.Recorded, err = expectedSum(d, c.Path)
			if err != nil {
				c.Problem = err.Error()
			}
			out = append(out, c)
		}
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// expectedSum is the one place the sum a binary must have comes from: a
// package's lock entry when the directory is a package's, else the
// sha256 file make or `plugins install` wrote beside it.
func expectedSum(d Dir, binary string) (string, error) {
	if d.Package != "" {
		if b, err := hex.DecodeString(d.SHA256); err != nil || len(b) != 32 {
			return "", fmt.Errorf("the package lock records no sha256 for %s (%q): reinstall the package", filepath.Base(binary), d.SHA256)
		}
		return strings.ToLower(d.SHA256), nil
	}
	return readChecksum(binary + ".sha256")
}

// readChecksum reads a sha256sum-format file: "<hex>  <file name>".
func readChecksum(path string) (string, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return "", fmt.Errorf("no recorded checksum (%s is missing): rebuild with make for a built-in toolset, or install yours with demiurge plugins install PATH", filepath.Base(path))
	}
	if err != nil {
		return "", fmt.Errorf("read recorded checksum: %w", err)
	}
	defer f.Close()
	line, err := bufio.NewReader(f).ReadString('\n')
	if err != nil && line == "" {
		return "", fmt.Errorf("%s is empty", path)
	}
	sum, _, _ := strings.Cut(strings.TrimSpace(line), " ")
	if b, err := hex.DecodeString(sum); err != nil || len(b) != 32 {
		return "", fmt.Errorf("%s: %q is not a sha256", path, sum)
	}
	return strings.ToLower(sum), nil
}
