package toolhost

import (
	"path/filepath"
	"testing"

	"demiurge.dev/host/corerepo"
)

// hostOnRepo opens a host on opts.StateDir, whose core comes from the
// state's core repository (made on first use), closed when the test ends;
// with that repository and its live commit.
func hostOnRepo(t *testing.T, opts Options) (*Host, *corerepo.Repo, string) {
	t.Helper()
	if opts.Workspace == "" {
		opts.Workspace = t.TempDir()
	}
	opts.BuiltinPluginDir = builtinDir
	h, err := Open(opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { h.Close() })
	r, err := corerepo.Open(opts.StateDir)
	if err != nil {
		t.Fatal(err)
	}
	live, err := r.Live()
	if err != nil {
		t.Fatal(err)
	}
	return h, r, live
}

// stateRepo is the state's core repository, made from the embedded
// default core if missing, and its live commit.
func stateRepo(tb testing.TB, state string) (*corerepo.Repo, string) {
	tb.Helper()
	r, err := corerepo.OpenOrInit(state)
	if err != nil {
		tb.Fatal(err)
	}
	live, err := r.Live()
	if err != nil {
		tb.Fatal(err)
	}
	return r, live
}

// checkout writes commit's tree into a fresh directory to edit.
func checkout(tb testing.TB, r *corerepo.Repo, commit string) string {
	tb.Helper()
	work := filepath.Join(tb.TempDir(), "w")
	if err := r.Checkout(commit, work); err != nil {
		tb.Fatal(err)
	}
	return work
}
