package toolhost

import (
	"context"
	"slices"
	"testing"
)

// TestFreshSessionsShareTheCatalog: a fresh session (a one-shot call
// through the long-lived host) is handed the catalog another fresh
// session of the same inputs resolved, instead of resolving it again;
// a core with deferred tools is never shared, so one session's
// activation is never offered in another.
func TestFreshSessionsShareTheCatalog(t *testing.T) {
	ctx := context.Background()
	h, err := open(t, "", t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	a, b := h.OpenSessionAs(h.RootPrincipal(), false), h.OpenSessionAs("x", false)
	defer a.End()
	defer b.End()
	ca, err := a.Catalog(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if cb, err := b.Catalog(ctx); err != nil || cb != ca {
		t.Fatalf("a second fresh session resolved its catalog again (%v)", err)
	}

	dir := writeCore(t, "toolsets: [coding, demiurge_control]\ncapabilities: [fs.read, fs.write, network.fetch]\ntools:\n  deferred: [web_extract, terminal]\n")
	d, err := open(t, dir, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	one, two := d.OpenSessionAs(d.RootPrincipal(), false), d.OpenSessionAs(d.RootPrincipal(), false)
	defer one.End()
	defer two.End()
	turnOne, err := one.NewCallTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := two.NewCallTurn(ctx); err != nil {
		t.Fatal(err)
	}
	if o := turnCall(t, turnOne, "search_capabilities", map[string]any{"query": "web_extract"}); !o.OK() {
		t.Fatalf("search: %s %q", o.Status, o.Views.Model.String())
	}
	next, err := two.NewCallTurn(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if slices.Contains(definitionNames(t, next.Catalog), "web_extract") {
		t.Fatal("one session's activation is offered in another session")
	}
	mine, err := one.NewCallTurn(ctx)
	if err != nil || !slices.Contains(definitionNames(t, mine.Catalog), "web_extract") {
		t.Fatalf("the activating session is not offered its tool (%v)", err)
	}
}
