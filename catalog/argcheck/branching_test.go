package argcheck

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
)

// A recursive definition that branches in place (an anyOf of two
// alternatives, each referring back to it for the next level) cost the
// checker two to the power of the arguments' depth: forty levels of
// {"a":...} ending in an invalid value took it hours, on the host, before
// approval, with nothing able to stop it. The check is bounded: such
// arguments are refused, quickly, and ordinary arguments still pass.
func TestABranchingRecursiveSchemaCannotMakeTheArgumentCheckExponential(t *testing.T) {
	schema := `{"type":"object","properties":{"x":{"$ref":"#/$defs/n"}},"$defs":{"n":{"anyOf":[
		{"type":"object","properties":{"a":{"$ref":"#/$defs/n"}},"required":["a"]},
		{"type":"object","properties":{"a":{"$ref":"#/$defs/n"}},"required":["a"]}]}}}`
	var doc any
	if err := json.Unmarshal([]byte(schema), &doc); err != nil {
		t.Fatal(err)
	}
	ck, err := Compile(doc)
	if err != nil {
		t.Fatal(err)
	}
	nested := func(depth int, leaf string) string {
		return `{"x":` + strings.Repeat(`{"a":`, depth) + leaf + strings.Repeat(`}`, depth) + `}`
	}
	// Ordinary: shallow arguments, valid and invalid, are judged as before.
	if _, err := ck.(*Checker).Coerce(json.RawMessage(nested(3, `{"a":{}}`))); err == nil {
		t.Fatal("a missing required a passed")
	}
	start := time.Now()
	_, err = ck.(*Checker).Coerce(json.RawMessage(nested(40, `1`)))
	if took := time.Since(start); took > 5*time.Second {
		t.Fatalf("the check of 40 levels took %v", took)
	}
	if err == nil {
		t.Fatal("40 levels ending in 1 passed")
	}
	t.Logf("refused in %v: %v", time.Since(start), err)

	// Size is not branching: fifty thousand values, each against two
	// alternatives, each pair reached once, are checked as before.
	var flat any
	if err := json.Unmarshal([]byte(`{"type":"object","properties":{"v":{"type":"array","items":{"anyOf":[{"type":"integer"},{"type":"string"}]}}}}`), &flat); err != nil {
		t.Fatal(err)
	}
	fck, err := Compile(flat)
	if err != nil {
		t.Fatal(err)
	}
	big := `{"v":[` + strings.Repeat(`1,"s",`, 25000) + `2]}`
	if _, err := fck.(*Checker).Coerce(json.RawMessage(big)); err != nil {
		t.Fatalf("fifty thousand flat values refused: %v", err)
	}
	if _, err := fck.(*Checker).Coerce(json.RawMessage(`{"v":[1,true]}`)); err == nil {
		t.Fatal("a boolean item passed")
	}
}
