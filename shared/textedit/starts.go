// Package textedit holds what an exact-string edit and the card that
// shows it must agree on, so the approval card and the tool decide alike.
package textedit

import "strings"

// CountStarts is how many offsets sub starts at in s, overlapping ones
// too: the count an edit's uniqueness is decided by ("}\n}\n" starts twice
// in "}\n}\n}\n", where strings.Count finds it once). An edit of one of two
// overlapping places is as ambiguous as one of two apart.
func CountStarts(s, sub string) int {
	n := 0
	for i := strings.Index(s, sub); i >= 0; {
		n++
		j := strings.Index(s[i+1:], sub)
		if j < 0 {
			break
		}
		i += 1 + j
	}
	return n
}
