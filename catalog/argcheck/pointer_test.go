package argcheck

import (
	"encoding/json"
	"testing"
)

// TestJSONPointer: RFC 6901's examples, as the host's two schema walks
// (the MCP definition's cost, the arguments' cost) follow a $ref.
func TestJSONPointer(t *testing.T) {
	var doc any
	if err := json.Unmarshal([]byte(`{"foo":["bar","baz"],"":0,"a/b":1,"m~n":8,"n":null}`), &doc); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		ptr  string
		want string
		ok   bool
	}{
		{"", `{"":0,"a/b":1,"foo":["bar","baz"],"m~n":8,"n":null}`, true},
		{"/foo", `["bar","baz"]`, true},
		{"/foo/0", `"bar"`, true},
		{"/", `0`, true},
		{"/a~1b", `1`, true},
		{"/m~0n", `8`, true},
		{"/n", `null`, true},
		{"/foo/2", ``, false},
		{"/foo/-1", ``, false},
		{"/nope", ``, false},
		{"foo", ``, false},
		{"/foo/0/x", ``, false},
	} {
		v, ok := JSONPointer(doc, tc.ptr)
		if ok != tc.ok {
			t.Errorf("%q: ok %v, want %v", tc.ptr, ok, tc.ok)
			continue
		}
		if ok {
			if b, _ := json.Marshal(v); string(b) != tc.want {
				t.Errorf("%q = %s, want %s", tc.ptr, b, tc.want)
			}
		}
	}
}
