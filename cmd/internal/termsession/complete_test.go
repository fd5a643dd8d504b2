package termsession

import (
	"fmt"
	"testing"
)

func TestCompleter(t *testing.T) {
	c := Completer{Tools: func() []string { return []string{"read_file", "write_file", "terminal", "search_files"} }}
	for _, tc := range []struct {
		line string
		want string
		n    int
	}{
		{"/ap", "[provals ]", 3},
		{"/t", "[asks  ools ]", 2},
		{"/", "[approvals  call  help  quit  session  stop  subagents  tasks  tools  usage ]", 1},
		{"/call ", "[read_file  search_files  terminal  write_file ]", 0},
		{"/call re", "[ad_file ]", 2},
		{"/call read_file {", "[]", 0},
		{"/tools f", "[ull ]", 1},
		{"/approvals r", "[evoke ]", 1},
		{"/nosuch x", "[]", 1},
		{"hello", "[]", 0},
	} {
		got, n := c.Do([]rune(tc.line), len([]rune(tc.line)))
		var s []string
		for _, g := range got {
			s = append(s, string(g))
		}
		if fmt.Sprintf("%v", s) != tc.want || (len(got) > 0 && n != tc.n) {
			t.Errorf("complete %q = %q, %d; want %s, %d", tc.line, s, n, tc.want, tc.n)
		}
	}
}
