package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"

	"github.com/rogpeppe/go-internal/testscript"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/mcp/mcptest"
	"demiurge.dev/host/packages/packagetest"
	"demiurge.dev/host/plugins/plugintest"
	"demiurge.dev/host/toolhost"
)

func TestMain(m *testing.M) {
	// The suites of the in-process path keep it; the host's own tests
	// set DEMIURGE_HOST=on (host_test.go).
	if _, set := os.LookupEnv("DEMIURGE_HOST"); !set {
		os.Setenv("DEMIURGE_HOST", "off")
	}
	os.Exit(testscript.RunMain(removingTemps{m}, map[string]func() int{
		"demiurge": func() int { return run(os.Args) },
	}))
}

// removingTemps runs the tests, then removes the built plugins and
// fixtures: they are this process's own, and every run left them behind
// in the temporary directory before (150 MB each). testscript exits
// itself, so the removal is part of the run it is handed.
type removingTemps struct{ m *testing.M }

func (r removingTemps) Run() int {
	code := r.m.Run()
	for _, dir := range []string{pluginsTmp, fixtureDir} {
		if dir != "" {
			os.RemoveAll(dir)
		}
	}
	mcptest.Cleanup()
	return code
}

var (
	pluginsOnce sync.Once
	pluginsTmp  string // removed by TestMain
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
		pluginsTmp = tmp
		pluginsDir = os.Getenv("DEMIURGE_TEST_PLUGIN_DIR")
		if pluginsDir == "" {
			pluginsDir = filepath.Join(tmp, "builtin")
			pluginsErr = plugintest.Build(pluginsDir, "coding", "demiurge.dev/plugins/coding")
			if pluginsErr == nil {
				pluginsErr = plugintest.Build(pluginsDir, "demiurge_control", "demiurge.dev/plugins/control")
			}
			if pluginsErr == nil {
				pluginsErr = plugintest.Build(pluginsDir, "authored", "demiurge.dev/plugins/authored")
			}
			if pluginsErr == nil {
				pluginsErr = plugintest.Build(pluginsDir, "schedule", "demiurge.dev/plugins/schedule")
			}
			if pluginsErr == nil { // the sandbox helper, as make build puts it
				pluginsErr = buildExample(filepath.Join(pluginsDir, "demiurge-sandbox"), "demiurge.dev/cmd/sandbox")
			}
			if pluginsErr == nil { // and its first stage beside it
				pluginsErr = buildExample(filepath.Join(pluginsDir, "demiurge-sandbox-first"), "demiurge.dev/cmd/sandbox/first")
			}
			// The provider packages, where make puts them: bin/packages.
			for _, name := range []string{"web_search_brave", "web_search_tavily"} {
				if pluginsErr == nil {
					_, _, pluginsErr = packagetest.Build(filepath.Join(pluginsDir, "packages"), name)
				}
			}
		}
		examplesDir = filepath.Join(tmp, "examples")
		if pluginsErr == nil {
			pluginsErr = plugintest.Build(examplesDir, "textstats", "demiurge.dev/sdk/example/textstats")
		}
		if pluginsErr == nil { // reads a path argument as given and as the host resolved it
			pluginsErr = plugintest.Build(examplesDir, "pathcheck", "demiurge.dev/sdk/testtoolsets/pathcheck")
		}
		if pluginsErr == nil { // an authored tool that is a compiled executable
			pluginsErr = buildExample(filepath.Join(examplesDir, "wordcount"), "demiurge.dev/plugins/authored/example/wordcount")
		}
	})
	if pluginsErr != nil {
		t.Fatal(pluginsErr)
	}
	return pluginsDir, examplesDir
}

func TestScripts(t *testing.T) {
	builtin, examples := testPlugins(t)
	testscript.Run(t, testscript.Params{
		Dir: "testdata/script",
		Setup: func(env *testscript.Env) error {
			env.Setenv("DEMIURGE_PLUGIN_DIR", builtin)
			env.Setenv("DEMIURGE_HOST", "off") // host_*.txtar turn it on
			env.Setenv("EXAMPLES", examples)
			env.Setenv("DEMIURGE_STATE", filepath.Join(env.WorkDir, ".state"))
			env.Setenv("HOME", filepath.Join(env.WorkDir, "home"))
			if root, err := filepath.Abs("../.."); err == nil { // the checkout, for plugins new
				env.Setenv("DEMIURGE_SRC", root)
			}
			goEnv(env) // the walkthrough builds a plugin with go
			depEnv(env)
			if dir, err := filepath.Abs("testdata/pyplugin"); err == nil {
				env.Setenv("PYPLUGIN", dir)
			}
			return mcpScriptEnv(env)
		},
		Cmds:                joinCmds(mcpScriptCmds(), modelCmds, scriptCmds, depCmds, scheduleCmds),
		Condition:           depCondition,
		RequireExplicitExec: true,
	})
}

func buildExample(out, pkg string) error {
	if b, err := exec.Command("go", "build", "-o", out, pkg).CombinedOutput(); err != nil {
		return fmt.Errorf("build %s: %w\n%s", pkg, err, b)
	}
	return nil
}

// joinCmds joins the testscript command sets of the test files.
func joinCmds(sets ...map[string]func(ts *testscript.TestScript, neg bool, args []string)) map[string]func(ts *testscript.TestScript, neg bool, args []string) {
	all := map[string]func(ts *testscript.TestScript, neg bool, args []string){}
	for _, set := range sets {
		for name, fn := range set {
			if all[name] != nil {
				panic("testscript command " + name + " is defined twice")
			}
			all[name] = fn
		}
	}
	return all
}

// openTestHost is a host in this process over a new state and workspace,
// with the built-in plugins, denying what would be asked; it closes when
// the test ends.
func openTestHost(t *testing.T) *toolhost.Host {
	t.Helper()
	builtin, _ := testPlugins(t)
	h, err := toolhost.Open(toolhost.Options{StateDir: t.TempDir(), Workspace: t.TempDir(), BuiltinPluginDir: builtin, Approver: approval.DenyAll{}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	return h
}
