package shellguard

import (
	"encoding/json"
	"testing"
)

// TestVerdictJSONRoundTrip: a verdict written as JSON (the host's approval
// question to a front end) reads back the same, and a name the guard does
// not know is refused rather than read as allow.
func TestVerdictJSONRoundTrip(t *testing.T) {
	for _, d := range []Decision{Allow, Prompt, Block} {
		for _, r := range []Risk{Low, Medium, High} {
			b, err := json.Marshal(struct {
				D Decision
				R Risk
			}{d, r})
			if err != nil {
				t.Fatal(err)
			}
			var back struct {
				D Decision
				R Risk
			}
			if err := json.Unmarshal(b, &back); err != nil || back.D != d || back.R != r {
				t.Fatalf("%s: read back %v %v, %v", b, back.D, back.R, err)
			}
		}
	}
	var d Decision = Block
	if err := json.Unmarshal([]byte(`"allowed"`), &d); err == nil {
		t.Fatalf("an unknown decision read as %v", d)
	}
}
