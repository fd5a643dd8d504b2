package fsops

import (
	"context"
	"strings"
	"testing"
)

// TestSearchLeavesTheHostStateOut: a demiurge state directory inside the
// workspace (the `make run` layout, a workspace of $HOME) holds every
// session, the host's logs and its keys. read_file asks the operator for a
// path there (the host knows its state), but search_files has no path the
// host judges: its walk read the logs and the core's repository with no
// one asked. The walk now leaves a directory holding the host's store out
// and says so, in content and files mode; a search that starts at or in
// one (or at a file in one, through a symlink too) is refused.
func TestSearchLeavesTheHostStateOut(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	fx.write(t, "src/a.go", "needle in the project\n")
	fx.write(t, ".st/demiurge.db", "needle in the sessions\n")
	fx.write(t, ".st/logs/host.log", "needle in the host's log\n")
	fx.write(t, ".st/core/repo.git/config", "needle in the core\n")
	fx.symlink(t, ".st/logs/host.log", "loglink")

	for _, mode := range []string{"content", "files"} {
		pattern := "needle"
		if mode == "files" {
			pattern = "."
		}
		r, err := Search(ctx, fx.ws, SearchParams{Pattern: pattern, Mode: mode})
		if err != nil {
			t.Fatal(err)
		}
		all := strings.Join(r.Files, "\n")
		for _, m := range r.Matches {
			all += "\n" + m.Path + ": " + m.Text
		}
		if strings.Contains(all, ".st") || !strings.Contains(all, "src/a.go") || r.Skipped.HostState != 1 || !strings.Contains(r.Note, "1 host state directories") {
			t.Fatalf("%s: %q, skipped %+v, note %q", mode, all, r.Skipped, r.Note)
		}
	}
	for _, p := range []string{".st", ".st/logs", ".st/logs/host.log", "./.st/core/../logs", fx.in(".st/logs"), "loglink"} {
		_, err := Search(ctx, fx.ws, SearchParams{Pattern: "needle", Path: p})
		wantKind(t, err, ErrSensitive)
	}
	// A directory that is not a state directory is searched as before.
	if r, err := Search(ctx, fx.ws, SearchParams{Pattern: "needle", Path: "src"}); err != nil || r.Count != 1 {
		t.Fatalf("src: %+v %v", r, err)
	}
}

// TestASymlinkIntoTheHostStateIsNotFollowed: the host judges the path a
// read names, and asks the operator for one in its state; a file swapped
// for a symlink into the state after that check (a background command
// can; shown with the real binary: an auto-approved read_file of x
// returned the state's catalog snapshot) is refused on the descriptor, by
// read_file and by a search of that one file. Named directly, the state's
// file is read (the host asked the operator).
func TestASymlinkIntoTheHostStateIsNotFollowed(t *testing.T) {
	fx := newFixture(t)
	ctx := context.Background()
	fx.write(t, ".st/demiurge.db", "x")
	fx.write(t, ".st/cache/snapshot.json", "hmac of the catalog\n")
	fx.symlink(t, ".st/cache/snapshot.json", "x")
	fx.symlink(t, ".st", "stlink")
	for _, p := range []string{"x", "stlink/cache/snapshot.json"} {
		_, err := ReadFile(ctx, fx.ws, ReadParams{Path: p})
		wantKind(t, err, ErrSensitive)
		_, err = Search(ctx, fx.ws, SearchParams{Pattern: "hmac", Path: p})
		wantKind(t, err, ErrSensitive)
	}
	if r, err := ReadFile(ctx, fx.ws, ReadParams{Path: ".st/cache/snapshot.json"}); err != nil || !strings.Contains(r.Content, "hmac") {
		t.Fatalf("named directly: %+v %v", r, err)
	}
}
