package policy

import "testing"

func TestConflicts(t *testing.T) {
	for _, tc := range []struct {
		name      string
		a, b      []string
		aRO, bRO  bool
		wantConfl bool
	}{
		{"two readers of one file", []string{"fs:/w/a"}, []string{"fs:/w/a"}, true, true, false},
		{"two readers without keys", nil, nil, true, true, false},
		{"writer and reader of one file", []string{"fs:/w/a"}, []string{"fs:/w/a"}, false, true, true},
		{"reader and writer of one file", []string{"fs:/w/a"}, []string{"fs:/w/a"}, true, false, true},
		{"writer and reader of different files", []string{"fs:/w/a"}, []string{"fs:/w/b"}, false, true, false},
		{"two writers of different files", []string{"fs:/w/a"}, []string{"fs:/w/b"}, false, false, false},
		{"writer under a searched directory", []string{"fs:/w/dir/f"}, []string{"fs:/w/dir"}, false, true, true},
		{"searched directory above a writer", []string{"fs:/w"}, []string{"fs:/w/dir/f"}, true, false, true},
		{"root above everything", []string{"fs:/"}, []string{"fs:/w/x"}, true, false, true},
		{"shared string prefix is not a path prefix", []string{"fs:/w/dir"}, []string{"fs:/w/dir2/f"}, false, true, false},
		{"one of several keys", []string{"fs:/w/x", "fs:/w/y"}, []string{"fs:/w/z", "fs:/w/y"}, false, true, true},
		{"writer with unknown footprint", nil, []string{"fs:/w/a"}, false, true, true},
		{"reader vs writer with unknown footprint", []string{"fs:/w/a"}, nil, true, false, true},
		{"reader without keys vs writer", nil, []string{"fs:/w/a"}, true, false, true},
		{"reader without keys vs reader", nil, []string{"fs:/w/a"}, true, true, false},
		{"command vs writer of a file", []string{"exec:/w"}, []string{"fs:/elsewhere/a"}, false, false, true},
		{"command vs reader of a file", []string{"exec:/w"}, []string{"fs:/w/a"}, false, true, true},
		{"two commands in different directories", []string{"exec:/w/a"}, []string{"exec:/w/b"}, false, false, true},
		{"command vs network fetch", []string{"exec:/w"}, []string{"net:https://example.com"}, false, true, false},
		{"same non-fs key", []string{"cmd:x"}, []string{"cmd:x"}, false, true, true},
		{"non-fs keys never prefix", []string{"cmd:x"}, []string{"cmd:x/y"}, false, true, false},
	} {
		if got := Conflicts(tc.a, tc.b, tc.aRO, tc.bRO); got != tc.wantConfl {
			t.Errorf("%s: Conflicts = %v, want %v", tc.name, got, tc.wantConfl)
		}
		if got := Conflicts(tc.b, tc.a, tc.bRO, tc.aRO); got != tc.wantConfl {
			t.Errorf("%s (swapped): Conflicts = %v, want %v", tc.name, got, tc.wantConfl)
		}
	}
}
