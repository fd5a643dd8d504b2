package sdk

import (
	"maps"
	"testing"

	"demiurge.dev/shared/toolsetv1"
	"google.golang.org/protobuf/encoding/protowire"
	"google.golang.org/protobuf/proto"
)

// mapEntries writes EffectRequest.paths as protobuf-go wrote the field
// when it was a map<string, string>: one length-delimited entry per
// pair, its key as field 1 and its value as field 2, both always written.
func mapEntries(pairs ...[2]string) []byte {
	var b []byte
	for _, p := range pairs {
		var e []byte
		e = protowire.AppendString(protowire.AppendTag(e, 1, protowire.BytesType), p[0])
		e = protowire.AppendString(protowire.AppendTag(e, 2, protowire.BytesType), p[1])
		b = protowire.AppendBytes(protowire.AppendTag(b, 24, protowire.BytesType), e)
	}
	return b
}

// TestResolvedPathsAreTheMapOnTheWire: EffectRequest.paths, a map until
// it became repeated ResolvedPath entries, is the same on the wire both
// ways: a plugin reads the paths a host of the map form sent (a repeated
// argument's last path winning, as in a map, and an empty key or value
// too), and a host now writes the bytes the map form wrote.
func TestResolvedPathsAreTheMapOnTheWire(t *testing.T) {
	var req toolsetv1.EffectRequest
	old := mapEntries([2]string{"path", "/ws/a"}, [2]string{"dest", "/ws/b"}, [2]string{"path", "/ws/c"}, [2]string{"", ""})
	if err := proto.Unmarshal(old, &req); err != nil {
		t.Fatal(err)
	}
	want := map[string]string{"path": "/ws/c", "dest": "/ws/b", "": ""}
	if got := resolvedPaths(req.GetPaths()); !maps.Equal(got, want) {
		t.Errorf("paths read from the map form = %v, want %v", got, want)
	}
	if got := resolvedPaths(nil); got != nil {
		t.Errorf("no paths read as %v, want nil", got)
	}
	one := &toolsetv1.EffectRequest{Paths: []*toolsetv1.ResolvedPath{{Arg: "path", Path: "/ws/small.txt"}}}
	b, err := proto.Marshal(one)
	if err != nil {
		t.Fatal(err)
	}
	if want := mapEntries([2]string{"path", "/ws/small.txt"}); string(b) != string(want) {
		t.Errorf("paths written as %x, the map form wrote %x", b, want)
	}
}
