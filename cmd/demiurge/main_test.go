package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"
)

func TestMain(m *testing.M) {
	os.Exit(testscript.RunMain(m, map[string]func() int{
		"demiurge": func() int { return run(os.Args) },
	}))
}

var (
	pluginsOnce sync.Once
	pluginsDir  string
	examplesDir string
	pluginsErr  error
)

// plugins returns a directory with the built-in plugins (from `make
// build` when DEMIURGE_TEST_PLUGIN_DIR says where, else built here) and
// one with the example third-party toolset.
func testPlugins(t *testing.T) (builtin, examples string) {
	t.Helper()
	pluginsOnce.Do(func() {
		tmp, err := os.MkdirTemp("", "demiurge-cli-plugins-")
		if err != nil {
			pluginsErr = err
			return
		}
		pluginsDir = os.Getenv("DEMIURGE_TEST_PLUGIN_DIR")
		if pluginsDir == "" {
			pluginsDir = filepath.Join(tmp, "builtin")
			pluginsErr = buildPlugin(pluginsDir, "coding", "demiurge.dev/plugins/coding")
		}
		examplesDir = filepath.Join(tmp, "examples")
		if pluginsErr == nil {
			pluginsErr = buildPlugin(examplesDir, "textstats", "demiurge.dev/sdk/example/textstats")
		}
	})
	if pluginsErr != nil {
		t.Fatal(pluginsErr)
	}
	return pluginsDir, examplesDir
}

func buildPlugin(dir, name, pkg string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	bin := "demiurge-toolset-" + name
	if out, err := exec.Command("go", "build", "-o", filepath.Join(dir, bin), pkg).CombinedOutput(); err != nil {
		return &buildError{pkg, err, out}
	}
	cmd := exec.Command("sh", "-c", "sha256sum "+bin+" > "+bin+".sha256")
	cmd.Dir = dir
	if out, err := cmd.CombinedOutput(); err != nil {
		return &buildError{pkg, err, out}
	}
	return nil
}

type buildError struct {
	pkg    string
	err    error
	output []byte
}

func (e *buildError) Error() string {
	return "build " + e.pkg + ": " + e.err.Error() + "\n" + string(e.output)
}

func TestScripts(t *testing.T) {
	builtin, examples := testPlugins(t)
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("DEMIURGE_PLUGIN_DIR", builtin)
			env.Setenv("EXAMPLES", examples)
			env.Setenv("DEMIURGE_STATE", filepath.Join(env.WorkDir, ".state"))
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			return nil
		},
		RequireExplicitExec: true,
	})
}
