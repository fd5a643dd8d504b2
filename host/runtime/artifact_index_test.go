package runtime

import (
	"context"
	"errors"
	"path/filepath"
	"testing"
)

func TestIndexArtifact(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "state.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	ctx := context.Background()
	rec := ArtifactRecord{Root: "0f1e2d", Path: "terminal/sp_1/stdout.log", Size: 3, Tool: "terminal", Principal: "p", Session: "s1"}
	if err := s.IndexArtifact(ctx, rec); err != nil {
		t.Fatal(err)
	}
	rec.Size = 9 // the stream grew: the same reference is updated
	if err := s.IndexArtifact(ctx, rec); err != nil {
		t.Fatal(err)
	}
	got, err := s.Artifacts("p", "s1")
	if err != nil || len(got) != 1 || got[0].Ref != "0f1e2d/terminal/sp_1/stdout.log" || got[0].Size != 9 || got[0].Created.IsZero() {
		t.Fatalf("Artifacts = %+v, %v", got, err)
	}
	for _, who := range [][2]string{{"p", "s2"}, {"q", "s1"}, {"", ""}} {
		if other, _ := s.Artifacts(who[0], who[1]); len(other) != 0 {
			t.Errorf("%v sees %+v", who, other)
		}
	}
	for _, bad := range []ArtifactRecord{
		{Root: "", Path: "x"}, {Root: "a/b", Path: "x"}, {Root: "..", Path: "x"},
		{Root: "r", Path: ""}, {Root: "r", Path: "/etc/passwd"}, {Root: "r", Path: "../x"},
		{Root: "r", Path: "a/../../x"}, {Root: "r", Path: "a//b"}, {Root: "r", Path: `a\b`},
	} {
		if err := s.IndexArtifact(ctx, bad); !errors.Is(err, ErrBadArtifactRef) {
			t.Errorf("%+v: err %v, want ErrBadArtifactRef", bad, err)
		}
	}
}
