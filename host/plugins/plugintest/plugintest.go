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
// in dir, beside the built-in plugins, where make build puts it: commands
// and authored tools fail closed without it. It is copied from
// DEMIURGE_TEST_PLUGIN_DIR when that has one, else built.
func PlaceSandboxHelper(dir, helperName string) error {
	dst := filepath.Join(dir, helperName)
	if src := os.Getenv("DEMIURGE_TEST_PLUGIN_DIR"); src != "" {
		if b, err := os.ReadFile(filepath.Join(src, helperName)); err == nil {
			return os.WriteFile(dst, b, 0o755)
		}
	}
	if b, err := exec.Command("go", "build", "-o", dst, "demiurge.dev/cmd/sandbox").CombinedOutput(); err != nil {
		return fmt.Errorf("build the sandbox helper: %w\n%s", err, b)
	}
	return nil
}
