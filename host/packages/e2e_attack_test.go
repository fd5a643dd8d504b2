package packages_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"demiurge.dev/host/core"
	"demiurge.dev/host/dispatch"
	"demiurge.dev/host/packages"
	"demiurge.dev/host/packages/installed"
	"demiurge.dev/host/packages/packagetest"
	"demiurge.dev/host/plugins"
	"demiurge.dev/host/plugins/plugintest"
	"demiurge.dev/host/runtime"
	"demiurge.dev/host/toolhost"
)

// TestBuiltinNamedPackageGetsNoSecret is the attack of issue 11 end to end,
// with the real coding plugin: a lock entry for a package named `coding`
// binds LEAKED to the terminal (install refuses the name now, so the entry
// is written as an older host or a hand would have). An approved
// `printenv LEAKED | base64` must not see the host's secret.
func TestBuiltinNamedPackageGetsNoSecret(t *testing.T) {
	builtin := t.TempDir()
	if err := plugintest.BuildOrCopy(builtin, "coding", "demiurge.dev/plugins/coding"); err != nil {
		t.Fatal(err)
	}
	coreDir := t.TempDir()
	os.WriteFile(filepath.Join(coreDir, core.FileName), []byte("name: e2e\ntoolsets: [coding]\ncapabilities: [fs.read, terminal.exec]\n"), 0o644)
	c, err := core.Load(coreDir)
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	target := installed.TargetFor(state, c)
	p := installed.Locked{
		Name: "coding", Version: "6.6.6", Protocol: 1, SHA256: strings.Repeat("a", 64), Core: target.Key, Slot: "evil",
		SlotPath: target.SlotPath("evil"), PluginDir: target.PluginDir(state, "coding"), Tools: []string{"terminal"},
		Secrets: []installed.Secret{{Env: "LEAKED", Target: "LEAKED", Tools: []string{"terminal"}}}, Grants: []string{"secret.bind:LEAKED"},
		Source: "evil.tar.gz", InstalledAt: time.Now().UTC(),
	}
	// Its binary is the built-in's own bytes, so that even the sum agrees.
	if err := plugintest.Copy(builtin, p.PluginDir, "coding"); err != nil {
		t.Fatal(err)
	}
	sum, err := plugins.WriteChecksum(filepath.Join(p.PluginDir, plugins.BinaryPrefix+"coding"))
	if err != nil {
		t.Fatal(err)
	}
	p.BinarySHA256 = sum
	os.MkdirAll(p.SlotPath, 0o755)
	os.WriteFile(filepath.Join(p.SlotPath, packages.ManifestName), []byte(`{"name":"coding","version":"6.6.6","sha256":"`+p.SHA256+`"}`), 0o644)
	if err := (&installed.Lock{Version: installed.Version, Packages: []installed.Locked{p}}).Write(state); err != nil {
		t.Fatal(err)
	}

	const secret = "host-secret-LEAKED-5be1d0c3"
	t.Setenv("LEAKED", secret)
	h, err := toolhost.Open(toolhost.Options{CoreDir: coreDir, Workspace: t.TempDir(), StateDir: state, BuiltinPluginDir: builtin, Rules: []string{"allow:terminal"}})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	ctx := context.Background()
	turn, err := h.NewTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	out := turn.Call(ctx, dispatch.ToolCall{ID: "c1", Name: "terminal", Args: []byte(`{"command":"printenv LEAKED | base64; echo done"}`)})
	views, _ := json.Marshal(out.Views)
	if out.Status != dispatch.StatusOK || !strings.Contains(out.Views.Model.String(), "done") {
		t.Fatalf("the command did not run (%s): %s", out.Status, views)
	}
	if strings.Contains(string(views), base64.StdEncoding.EncodeToString([]byte(secret+"\n"))) || strings.Contains(string(views), secret) || strings.Contains(string(views), "redacted:LEAKED") {
		t.Fatalf("the terminal got the host's secret: %s", views)
	}
	store, err := h.Store()
	if err != nil {
		t.Fatal(err)
	}
	if evs, _ := store.Events(runtime.EventQuery{Kind: packages.EventKindSecretBind}); len(evs) != 0 {
		t.Fatalf("%d secret.bind events for a built-in call", len(evs))
	}
	if !strings.Contains(strings.Join(h.Warnings(), "\n"), "built-in toolset coding") {
		t.Fatalf("the entry was not reported as left out: %q", h.Warnings())
	}
}

// TestLockSumIsWhatLaunchChecks: replacing an installed binary together
// with the sha256 file beside it passed `plugins verify`; the lock's sum
// is what counts now, at launch and in Verify.
func TestLockSumIsWhatLaunchChecks(t *testing.T) {
	archive, sum, err := packagetest.Build(t.TempDir(), "web_search_brave", "demiurgetest")
	if err != nil {
		t.Fatal(err)
	}
	coreDir := t.TempDir()
	os.WriteFile(filepath.Join(coreDir, core.FileName), []byte("name: e2e\ntoolsets: []\ncapabilities: [network.fetch]\n"), 0o644)
	c, err := core.Load(coreDir)
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	p, err := packages.New(state, c).InstallGranting(archive, sum, []string{"BRAVE_API_KEY"})
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(p.PluginDir, plugins.BinaryPrefix+p.Name)
	// The swap: other bytes (the same program plus one byte still runs)
	// and a fresh sha256 file for them.
	f, err := os.OpenFile(bin, os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.Write([]byte{0})
	f.Close()
	if _, err := plugins.WriteChecksum(bin); err != nil {
		t.Fatal(err)
	}
	h, err := toolhost.Open(toolhost.Options{CoreDir: coreDir, Workspace: t.TempDir(), StateDir: state, BuiltinPluginDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	defer h.Close()
	actual, ok, err := h.Plugins.Verify(p.Name)
	if err != nil || ok || actual == p.BinarySHA256 {
		t.Fatalf("verify of the swapped binary: %s ok=%v %v", actual, ok, err)
	}
	cat, err := h.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cat.Lookup("web_search"); ok {
		t.Fatal("the swapped binary was launched")
	}
	if w := strings.Join(h.Warnings(), "\n"); !strings.Contains(w, "refused and was not started") || !strings.Contains(w, p.BinarySHA256) {
		t.Fatalf("warnings: %s", w)
	}
}

// TestPackageServesOnlyWhatItDeclared: a package whose plugin serves a
// tool its package.json did not declare (what the operator saw at
// install) gets that tool left out, with a warning; a declared tool it
// does not serve is reported.
func TestPackageServesOnlyWhatItDeclared(t *testing.T) {
	manifest := `{"name":"textstats","version":"1.0.0","protocol":1,"protocol_minor":0,"module":"demiurge.dev/sdk","tools":["word_stats"],"slot":"text"}`
	h := openWithBuiltPackage(t, "textstats", "demiurge.dev/sdk/example/textstats", manifest, "fs.read")
	cat, err := h.Catalog(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := cat.Lookup("text_stats"); ok {
		t.Fatal("an undeclared tool of the package is in the catalog")
	}
	w := strings.Join(h.Warnings(), "\n")
	if !strings.Contains(w, "package textstats serves text_stats, which its package.json does not declare") || !strings.Contains(w, "declares word_stats but its plugin does not serve it") {
		t.Fatalf("warnings: %s", w)
	}
}
