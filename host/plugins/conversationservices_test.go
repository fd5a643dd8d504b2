package plugins

import (
	"strings"
	"testing"
)

// The host bounds what a plugin may show the operator, whatever the tool
// checked before.
func TestCheckClarify(t *testing.T) {
	nine := []string{"1", "2", "3", "4", "5", "6", "7", "8", "9"}
	tests := []struct {
		name     string
		question string
		choices  []string
		ok       bool
	}{
		{"plain", "Which one?", nil, true},
		{"eight choices", "q", nine[:8], true},
		{"empty question", "", nil, false},
		{"long question", strings.Repeat("é", MaxClarifyQuestion+1), nil, false},
		{"bad utf-8", "q\xff", nil, false},
		{"nine choices", "q", nine, false},
		{"empty choice", "q", []string{"a", ""}, false},
		{"long choice", "q", []string{"a", strings.Repeat("x", MaxClarifyChoice+1)}, false},
		{"duplicate", "q", []string{"a", "a"}, false},
		{"bad utf-8 choice", "q", []string{"a", "\xff"}, false},
	}
	for _, tt := range tests {
		if err := CheckClarify(tt.question, tt.choices); (err == nil) != tt.ok {
			t.Errorf("%s: err = %v", tt.name, err)
		}
	}
}
