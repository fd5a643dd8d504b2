// Package plugintest builds and places real toolset plugins for tests of
// the host and the CLI: a binary named as the manager expects, with its
// checksum recorded beside it.
package plugintest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"demiurge.dev/host/plugins"
	"demiurge.dev/shared/sandbox"
)

// Build compiles the toolset in package pkg into dir as the plugin name and
// records its checksum.
func Build(dir, name, pkg string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	out := filepath.Join(dir, plugins.BinaryPrefix+name)
	if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
		return fmt.Errorf("build %s: %w\n%s", pkg, err, b)
	}
	_, err := plugins.WriteChecksum(out)
	return err
}

// Copy places plugin name from src into dst with its checksum file, so a
// test may tamper with its own copy.
func Copy(src, dst, name string) error {
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	for _, suffix := range []string{"", ".sha256"} {
		b, err := os.ReadFile(filepath.Join(src, plugins.BinaryPrefix+name+suffix))
		if err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dst, plugins.BinaryPrefix+name+suffix), b, 0o755); err != nil {
			return err
		}
	}
	return nil
}

// BuildOrCopy takes the plugin from DEMIURGE_TEST_PLUGIN_DIR when `make`
// already built it there, and builds it otherwise.
func BuildOrCopy(dir, name, pkg string) error {
	if src := os.Getenv("DEMIURGE_TEST_PLUGIN_DIR"); src != "" {
		if err := Copy(src, dir, name); err == nil {
			return nil
		}
	}
	return Build(dir, name, pkg)
}

// PlaceSandboxHelper puts the real re-exec helper (bin/demiurge-sandbox)
// and its first stage (bin/demiurge-sandbox-first) in dir, beside the
// built-in plugins, where make build puts them: commands and authored
// tools fail closed without the helper. Each is copied from
// DEMIURGE_TEST_PLUGIN_DIR when that has it, else built.
func PlaceSandboxHelper(dir, helperName string) error {
	for _, b := range [][2]string{{helperName, "demiurge.dev/cmd/sandbox"}, {sandbox.FirstStageName, "demiurge.dev/cmd/sandbox/first"}} {
		dst := filepath.Join(dir, b[0])
		if src := os.Getenv("DEMIURGE_TEST_PLUGIN_DIR"); src != "" {
			if bin, err := os.ReadFile(filepath.Join(src, b[0])); err == nil {
				if err := os.WriteFile(dst, bin, 0o755); err != nil {
					return err
				}
				continue
			}
		}
		if out, err := exec.Command("go", "build", "-o", dst, b[1]).CombinedOutput(); err != nil {
			return fmt.Errorf("build the sandbox helper: %w\n%s", err, out)
		}
	}
	return nil
}
