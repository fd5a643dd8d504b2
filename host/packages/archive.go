package packages

import (
	"archive/tar"
	"compress/gzip"
	"crypto/sha256"
	"debug/buildinfo"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// maxBinary bounds the plugin binary in an archive (a Go plugin is tens of
// MiB); maxArchive bounds the compressed archive.
const (
	maxBinary  = 512 << 20
	maxArchive = 512 << 20
)

// ChecksumError says an archive is not the one the operator named.
type ChecksumError struct {
	Path, Want, Got string
}

func (e *ChecksumError) Error() string {
	return fmt.Sprintf("%s has sha256 %s, but %s was expected: it is not the package you meant; nothing was installed", e.Path, e.Got, e.Want)
}

// stageArchive copies the archive into dir while hashing it, and compares
// the hash with want. Installing from the private copy means the bytes
// that were checked are the bytes that are unpacked.
func stageArchive(src, dir, want string) (staged, sum string, err error) {
	in, err := os.Open(src)
	if err != nil {
		return "", "", fmt.Errorf("open package archive: %w", err)
	}
	defer in.Close()
	if st, err := in.Stat(); err != nil || !st.Mode().IsRegular() {
		return "", "", fmt.Errorf("package archive %s is not a regular file", src)
	}
	out, err := os.CreateTemp(dir, "archive-*.tar.gz")
	if err != nil {
		return "", "", fmt.Errorf("stage package archive: %w", err)
	}
	sum, err = copyHashed(out, in, maxArchive)
	if err != nil {
		os.Remove(out.Name())
		return "", "", fmt.Errorf("stage package archive %s: %w", src, err)
	}
	if want = strings.ToLower(strings.TrimSpace(want)); sum != want {
		os.Remove(out.Name())
		return "", "", &ChecksumError{Path: src, Want: want, Got: sum}
	}
	return out.Name(), sum, nil
}

// unpacked is an archive's verified content.
type unpacked struct {
	manifest     *Manifest
	binary       string // path of the extracted binary in the staging dir
	binarySHA256 string
}

// unpack reads the staged archive into dir. The archive must hold exactly
// package.json and the binary it names, as regular files at the top level;
// the manifest and protocol are checked before the binary is written out,
// and the binary's build information after, without running it.
func unpack(archive, dir string) (*unpacked, error) {
	f, err := os.Open(archive)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("package archive is not gzip-compressed: %w", err)
	}
	defer gz.Close()
	tr := tar.NewReader(gz)
	u := &unpacked{}
	for {
		hdr, err := tr.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, fmt.Errorf("package archive is not a readable tar: %w", err)
		}
		name := strings.TrimPrefix(hdr.Name, "./")
		if hdr.Typeflag != tar.TypeReg || name == "" || strings.Contains(name, "/") {
			return nil, fmt.Errorf("package archive holds %q (type %c); only package.json and the plugin binary are allowed, as regular files at the top", hdr.Name, hdr.Typeflag)
		}
		switch {
		case name == ManifestName && u.manifest == nil:
			b, err := io.ReadAll(io.LimitReader(tr, maxManifest+1))
			if err != nil {
				return nil, fmt.Errorf("read %s: %w", ManifestName, err)
			}
			if u.manifest, err = ParseManifest(b); err != nil {
				return nil, err
			}
			if err := u.manifest.checkProtocol(); err != nil {
				return nil, err
			}
		case u.manifest != nil && name == u.manifest.Binary() && u.binary == "":
			if hdr.Size > maxBinary {
				return nil, fmt.Errorf("%s is larger than %d MiB", name, maxBinary>>20)
			}
			if u.binary, u.binarySHA256, err = writeBinary(tr, filepath.Join(dir, name)); err != nil {
				return nil, err
			}
		case u.manifest == nil:
			return nil, fmt.Errorf("package archive: %s must be its first entry, found %q", ManifestName, hdr.Name)
		default:
			return nil, fmt.Errorf("package archive holds %q; only %s and %s are allowed, once each", hdr.Name, ManifestName, u.manifest.Binary())
		}
	}
	if u.manifest == nil {
		return nil, fmt.Errorf("package archive has no %s", ManifestName)
	}
	if u.binary == "" {
		return nil, fmt.Errorf("package archive has no plugin binary %s", u.manifest.Binary())
	}
	if err := checkBuildInfo(u.binary, u.manifest); err != nil {
		return nil, err
	}
	return u, nil
}

func writeBinary(r io.Reader, path string) (string, string, error) {
	out, err := os.OpenFile(path, os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o755)
	if err != nil {
		return "", "", fmt.Errorf("unpack plugin binary: %w", err)
	}
	sum, err := copyHashed(out, r, maxBinary)
	if err != nil {
		return "", "", fmt.Errorf("unpack plugin binary: %w", err)
	}
	return path, sum, nil
}

// copyHashed copies at most limit bytes of r into out while hashing them,
// closes out, and returns the hex sha256; more than limit is an error.
func copyHashed(out *os.File, r io.Reader, limit int64) (string, error) {
	h := sha256.New()
	n, err := io.Copy(io.MultiWriter(out, h), io.LimitReader(r, limit+1))
	if cerr := out.Close(); err == nil {
		err = cerr
	}
	if err == nil && n > limit {
		err = fmt.Errorf("larger than %d MiB", limit>>20)
	}
	if err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// checkBuildInfo reads the binary's Go build information (a parse of the
// file, not a run): it must be a Go program built from the manifest's
// module.
func checkBuildInfo(path string, m *Manifest) error {
	bi, err := buildinfo.ReadFile(path)
	if err != nil {
		return fmt.Errorf("%s is not a Go toolset plugin (no Go build information: %v); refused", m.Binary(), err)
	}
	if m.Module != "" && bi.Main.Path != m.Module {
		return fmt.Errorf("%s was built from module %s, but %s declares %s; refused", m.Binary(), bi.Main.Path, ManifestName, m.Module)
	}
	return nil
}

// readManifest returns the manifest of an archive without unpacking it
// (package list): package.json is the archive's first entry.
func readManifest(archive string) (*Manifest, error) {
	f, err := os.Open(archive)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	gz, err := gzip.NewReader(f)
	if err != nil {
		return nil, fmt.Errorf("%s is not gzip-compressed: %w", archive, err)
	}
	defer gz.Close()
	tr := tar.NewReader(gz)
	hdr, err := tr.Next()
	if err != nil {
		return nil, fmt.Errorf("%s is not a readable tar: %w", archive, err)
	}
	if strings.TrimPrefix(hdr.Name, "./") != ManifestName {
		return nil, fmt.Errorf("%s: %s must be its first entry", archive, ManifestName)
	}
	b, err := io.ReadAll(io.LimitReader(tr, maxManifest+1))
	if err != nil {
		return nil, fmt.Errorf("%s: read %s: %w", archive, ManifestName, err)
	}
	return ParseManifest(b)
}
