// Package packagetest builds real provider packages for tests of the host
// and the CLI, laid out as `make build` lays them out: <dir>/<name>.tar.gz
// (package.json first, then the plugin binary) with its sha256 recorded in
// <dir>/<name>.tar.gz.sha256.
package packagetest

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Build compiles the provider plugin demiurge.dev/plugins/<name> with the
// given build tags and writes its package archive into dir. It returns the
// archive's path and sha256.
func Build(dir, name string, tags ...string) (archive, sum string, err error) {
	pkg := "demiurge.dev/plugins/" + name
	out, err := exec.Command("go", "list", "-f", "{{.Dir}}", pkg).Output()
	if err != nil {
		return "", "", fmt.Errorf("find %s: %w", pkg, err)
	}
	manifest, err := os.ReadFile(filepath.Join(strings.TrimSpace(string(out)), "package.json"))
	if err != nil {
		return "", "", err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", "", err
	}
	bin, err := os.CreateTemp(dir, ".build-*")
	if err != nil {
		return "", "", err
	}
	bin.Close()
	defer os.Remove(bin.Name())
	args := []string{"build", "-o", bin.Name()}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	if b, err := exec.Command("go", append(args, pkg)...).CombinedOutput(); err != nil {
		return "", "", fmt.Errorf("build %s: %w\n%s", pkg, err, b)
	}
	archive = filepath.Join(dir, name+".tar.gz")
	sum, err = Archive(archive, manifest, name, bin.Name())
	return archive, sum, err
}

// Archive writes a package archive of package name from a manifest and a
// built plugin binary, records its sha256 beside it, and returns the sum.
func Archive(path string, manifest []byte, name, binaryPath string) (string, error) {
	binary, err := os.ReadFile(binaryPath)
	if err != nil {
		return "", err
	}
	sum, err := writeArchive(path, manifest, "demiurge-toolset-"+name, binary)
	if err != nil {
		return "", err
	}
	line := fmt.Sprintf("%s  %s\n", sum, filepath.Base(path))
	return sum, os.WriteFile(path+".sha256", []byte(line), 0o644)
}

func writeArchive(path string, manifest []byte, binName string, binary []byte) (string, error) {
	f, err := os.Create(path)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	gz, _ := gzip.NewWriterLevel(io.MultiWriter(f, h), gzip.BestSpeed)
	tw := tar.NewWriter(gz)
	put := func(name string, body []byte) error {
		if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o755, Size: int64(len(body)), Typeflag: tar.TypeReg}); err != nil {
			return err
		}
		_, err := tw.Write(body)
		return err
	}
	if err := put("package.json", manifest); err != nil {
		return "", err
	}
	if err := put(binName, binary); err != nil {
		return "", err
	}
	if err := tw.Close(); err != nil {
		return "", err
	}
	if err := gz.Close(); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), f.Close()
}
