package dispatch

import (
	"reflect"
	"testing"

	"demiurge.dev/catalog"
	"demiurge.dev/host/policy"
)

// TestResolvedPathsOnePerArgument: the resolved paths sent to a plugin
// are the path subjects in their order, one per argument (a second
// subject of the same argument gives its path, as the map they were
// did), without the subjects that are not paths or were not resolved.
func TestResolvedPathsOnePerArgument(t *testing.T) {
	path := string(catalog.SubjectPath)
	a := &policy.Assessment{Subjects: []policy.SubjectFact{
		{Kind: path, Arg: "path", Resolved: "/w/a"},
		{Kind: "command", Arg: "command", Resolved: "/w/cmd"},
		{Kind: path, Arg: "dest", Resolved: "/w/b"},
		{Kind: path, Arg: "unresolved"},
		{Kind: path, Arg: "path", Resolved: "/w/c"},
	}}
	got := resolvedPaths(a)
	want := []ResolvedPath{{Arg: "path", Path: "/w/c"}, {Arg: "dest", Path: "/w/b"}}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("resolvedPaths = %v, want %v", got, want)
	}
	inv := Invocation{Paths: got}
	if inv.Path("path") != "/w/c" || inv.Path("dest") != "/w/b" || inv.Path("unresolved") != "" {
		t.Fatalf("Invocation.Path: %q %q %q", inv.Path("path"), inv.Path("dest"), inv.Path("unresolved"))
	}
	if resolvedPaths(&policy.Assessment{}) != nil {
		t.Fatal("a call without path subjects has resolved paths")
	}
}
