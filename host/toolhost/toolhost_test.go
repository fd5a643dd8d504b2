package toolhost

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"go.uber.org/goleak"

	"demiurge.dev/catalog"
	"demiurge.dev/host/mcp/mcptest"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/plugins/plugintest"
	"demiurge.dev/host/sandboxing"
)

var builtinDir, extraDir string

// TestMain builds real plugins: the coding and demiurge_control toolsets
// (or takes them from DEMIURGE_TEST_PLUGIN_DIR) and the third-party test
// toolsets.
func TestMain(m *testing.M) {
	tmp, err := os.MkdirTemp("", "toolhost-plugins-")
	if err != nil {
		panic(err)
	}
	builtinDir, extraDir = filepath.Join(tmp, "builtin"), filepath.Join(tmp, "extra")
	must := func(err error) {
		if err != nil {
			panic(err)
		}
	}
	must(plugintest.BuildOrCopy(builtinDir, "coding", "demiurge.dev/plugins/coding"))
	must(plugintest.BuildOrCopy(builtinDir, "demiurge_control", "demiurge.dev/plugins/control"))
	must(plugintest.PlaceSandboxHelper(builtinDir, sandboxing.HelperName))
	must(plugintest.Build(extraDir, "impostor", "demiurge.dev/sdk/testtoolsets/impostor"))
	must(plugintest.Build(extraDir, "textstats", "demiurge.dev/sdk/example/textstats"))
	must(plugintest.Build(extraDir, "eavesdropper", "demiurge.dev/sdk/testtoolsets/eavesdropper"))
	code := m.Run()
	os.RemoveAll(tmp)
	mcptest.Cleanup()
	if code == 0 {
		if err := goleak.Find(goleak.IgnoreAnyFunction("demiurge.dev/host/plugins.newSpawner.func1"),
			// bleve's process-wide analysis pool, started once by the library.
			goleak.IgnoreTopFunction("github.com/blevesearch/bleve_index_api.AnalysisWorker")); err != nil {
			println("goleak:", err.Error())
			code = 1
		}
	}
	os.Exit(code)
}

// install copies a test toolset into the state's installed-plugin dir.
func install(t *testing.T, state, name string) {
	t.Helper()
	if err := plugintest.Copy(extraDir, InstalledPluginDir(state), name); err != nil {
		t.Fatal(err)
	}
}

func open(t *testing.T, coreDir, state string) (*Host, error) {
	t.Helper()
	h, err := Open(Options{CoreDir: coreDir, Workspace: t.TempDir(), StateDir: state, BuiltinPluginDir: builtinDir})
	if err == nil {
		t.Cleanup(func() { h.Close() })
	}
	return h, err
}

// resolved opens a host and resolves its catalog, failing the test on
// any error.
func resolved(t *testing.T, coreDir, state string) (*Host, *catalog.Catalog) {
	t.Helper()
	h, err := open(t, coreDir, state)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := h.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	return h, cat
}

func writeCore(t testing.TB, yaml string) string {
	t.Helper()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "agent.yaml"), []byte(yaml), 0o644); err != nil {
		t.Fatal(err)
	}
	return dir
}

func TestDefaultCoreResolvesTheCodingAndControlTools(t *testing.T) {
	_, cat := resolved(t, "", t.TempDir())
	var names []string
	for _, e := range cat.Entries() {
		names = append(names, e.Spec.Name)
	}
	if got := strings.Join(names, ","); got != "read_file,write_file,patch,search_files,web_extract,terminal,todo,clarify,session_search,tools_list,task_status,task_control,yield_until,task_list,delegate_task,rollback_core,evolve_core" {
		t.Fatalf("tools = %s", got)
	}
	read, _ := cat.Lookup("read_file")
	write, _ := cat.Lookup("write_file")
	term, _ := cat.Lookup("terminal")
	if term.Effective.ApprovalPolicy != catalog.ApprovalPrompt || !term.Effective.LiteralCommandsAuto || term.Effective.Capability != "terminal.exec" {
		t.Fatalf("terminal's registry metadata: %+v", term.Effective)
	}
	if read.Effective.ApprovalPolicy != catalog.ApprovalAuto || write.Effective.ApprovalPolicy != catalog.ApprovalPrompt || write.Effective.Capability != "fs.write" {
		t.Fatalf("registry metadata: read %+v write %+v", read.Effective, write.Effective)
	}
	// tools_list shows the turn's own catalog and the task tools act on
	// the caller's own tasks only: auto, and only cancelling needs the
	// authority that starts commands.
	for name, capability := range map[string]string{"tools_list": "", "task_status": "", "task_list": "", "yield_until": "", "task_control": "terminal.exec"} {
		e, _ := cat.Lookup(name)
		if e == nil || e.Effective.ApprovalPolicy != catalog.ApprovalAuto || e.Effective.Risk != catalog.RiskLow || e.Effective.Capability != capability {
			t.Errorf("%s's registry metadata: %+v", name, e)
		} else if e.Spec.Provenance.Toolset != "demiurge_control" {
			t.Errorf("%s comes from toolset %q, want demiurge_control", name, e.Spec.Provenance.Toolset)
		}
	}
}

func TestKnownToolsetWithoutPluginFailsLoading(t *testing.T) {
	// A built-in toolset whose plugin was not built (an empty plugin dir).
	h, err := Open(Options{CoreDir: writeCore(t, "toolsets: [coding, demiurge_control]\n"), Workspace: t.TempDir(), StateDir: t.TempDir(), BuiltinPluginDir: t.TempDir()})
	if err == nil {
		h.Close()
	}
	if err == nil || !strings.Contains(err.Error(), "toolset coding needs the plugin demiurge-toolset-coding") || !strings.Contains(err.Error(), "make build") {
		t.Fatalf("err = %v", err)
	}
}

func TestInstalledToolsetJoinsAtTheThirdPartyFloor(t *testing.T) {
	state := t.TempDir()
	install(t, state, "textstats")
	_, cat := resolved(t, "", state)
	e, ok := cat.Lookup("text_stats")
	if !ok {
		t.Fatal("text_stats is not in the catalog")
	}
	// The plugin claims low/auto; a third-party tool cannot go below
	// medium/prompt on its own say-so.
	if e.Effective.ApprovalPolicy != catalog.ApprovalPrompt || e.Effective.Risk != catalog.RiskMedium {
		t.Fatalf("text_stats effective = %+v", e.Effective)
	}
}

func TestCollisionWithABuiltinFailsCoreLoading(t *testing.T) {
	state := t.TempDir()
	install(t, state, "impostor")
	h, err := open(t, "", state)
	if err != nil {
		t.Fatal(err)
	}
	_, err = h.Catalog(context.Background())
	if err == nil {
		t.Fatal("an installed plugin shadowed read_file")
	}
	msg := err.Error()
	for _, want := range []string{"core loading failed", "read_file", "coding", "impostor", "rename"} {
		if !strings.Contains(msg, want) {
			t.Errorf("collision error lacks %q: %s", want, msg)
		}
	}
}

func TestRegistryMetadataOnlyTightens(t *testing.T) {
	for _, tc := range []struct {
		name     string
		toolset  string
		builtin  bool
		tool     string
		claim    catalog.Metadata
		claimed  claimedFields
		risk     catalog.Risk
		approval catalog.ApprovalPolicy
		cap      string
	}{
		{"builtin keeps host policy", "coding", true, "write_file",
			catalog.Metadata{Risk: catalog.RiskLow, ApprovalPolicy: catalog.ApprovalAuto, Capability: "fs.read"}, claimedFields{true, true},
			catalog.RiskMedium, catalog.ApprovalPrompt, "fs.write"},
		{"builtin claim may tighten", "coding", true, "read_file",
			catalog.Metadata{Risk: catalog.RiskHigh, ApprovalPolicy: catalog.ApprovalDeny}, claimedFields{true, true},
			catalog.RiskHigh, catalog.ApprovalDeny, "fs.read"},
		{"installed plugin cannot borrow builtin metadata", "coding", false, "read_file",
			catalog.Metadata{Risk: catalog.RiskLow, ApprovalPolicy: catalog.ApprovalAuto}, claimedFields{true, true},
			catalog.RiskMedium, catalog.ApprovalPrompt, ""},
		{"unknown tool starts at the floor", "textstats", false, "text_stats",
			catalog.Metadata{Capability: "fs.read"}, claimedFields{},
			catalog.RiskMedium, catalog.ApprovalPrompt, "fs.read"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := registryMetadata(tc.toolset, tc.builtin, tc.tool, tc.claim, tc.claimed)
			if m.Risk != tc.risk || m.ApprovalPolicy != tc.approval || m.Capability != tc.cap {
				t.Fatalf("got %s/%s/%q, want %s/%s/%q", m.Risk, m.ApprovalPolicy, m.Capability, tc.risk, tc.approval, tc.cap)
			}
		})
	}
}

func TestUnreadableMetadataFailsClosed(t *testing.T) {
	state := t.TempDir()
	install(t, state, "impostor")
	h, cat := resolved(t, writeCore(t, "toolsets: [impostor]\ncapabilities: [fs.read, fs.write, terminal.exec, network.fetch]\n"), state)
	e, _ := cat.Lookup("impostor_probe")
	if e == nil || e.Effective.Risk != catalog.RiskHigh {
		t.Fatalf("risk \"lowest\" must be read as high: %+v", e)
	}
	if len(h.Warnings()) == 0 || !strings.Contains(strings.Join(h.Warnings(), "\n"), "taken as high") {
		t.Fatalf("warnings = %q", h.Warnings())
	}
}

func TestABrokenInstalledToolsetCostsOnlyItsOwnTools(t *testing.T) {
	state := t.TempDir()
	install(t, state, "textstats")
	bin := filepath.Join(InstalledPluginDir(state), plugins.BinaryPrefix+"textstats")
	f, err := os.OpenFile(bin, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("tampered")
	f.Close()
	h, cat := resolved(t, "", state)
	if _, ok := cat.Lookup("text_stats"); ok {
		t.Fatal("a refused plugin's tool is in the catalog")
	}
	if _, ok := cat.Lookup("read_file"); !ok {
		t.Fatal("the built-in tools went missing")
	}
	if w := strings.Join(h.Warnings(), "\n"); !strings.Contains(w, "textstats is left out") {
		t.Fatalf("warnings = %q", w)
	}
}

// An installed toolset is used by the core that names it in toolsets:
// and by the embedded default core; a core directory naming none of the
// installed ones does not get them.
func TestInstalledToolsetOnlyWhereNamed(t *testing.T) {
	state := t.TempDir()
	install(t, state, "textstats")
	caps := "capabilities: [fs.read]\n"
	for _, tc := range []struct {
		name, core string
		want       bool
	}{
		{"embedded default core", "", true},
		{"named", writeCore(t, "toolsets: [coding, textstats]\n"+caps), true},
		{"named alone", writeCore(t, "toolsets: [textstats]\n"+caps), true},
		{"not named", writeCore(t, "toolsets: [coding]\n"+caps), false},
		{"no toolsets", writeCore(t, "toolsets: []\n"+caps), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, cat := resolved(t, tc.core, state)
			e, ok := cat.Lookup("text_stats")
			if ok != tc.want {
				t.Fatalf("text_stats in the catalog: %v, want %v", ok, tc.want)
			}
			if ok && e.Spec.Provenance.Kind != catalog.SourceInstalled {
				t.Errorf("an installed toolset is listed as %s", e.Spec.Provenance.Kind)
			}
		})
	}
	// Naming one that is not installed says how to install it.
	_, err := open(t, writeCore(t, "toolsets: [nosuchset]\n"), state)
	if err == nil || !strings.Contains(err.Error(), "demiurge plugins install PATH") {
		t.Fatalf("err = %v", err)
	}
}
