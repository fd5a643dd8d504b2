package agents

import (
	"errors"
	"reflect"
	"strings"
	"testing"

	"demiurge.dev/host/core"
)

// input_slots/output_slots: none keeps base only, "all" the whole stage,
// a list filters it keeping the pipeline's order and grouping (never the
// list's), and an unknown id is refused naming the stage's ids.
func TestSlotSelectionKeepsOrderAndGrouping(t *testing.T) {
	stage := []core.Group{{core.BaseInput}, {"a", "b"}, {"c"}, {"d", "e"}}
	for _, c := range []struct {
		sel  SlotSelection
		want []core.Group
	}{
		{SlotSelection{}, []core.Group{{core.BaseInput}}},
		{SlotSelection{IDs: []string{}}, []core.Group{{core.BaseInput}}},
		{SlotSelection{All: true}, stage},
		{SlotSelection{IDs: []string{"e", "b", "a"}}, []core.Group{{core.BaseInput}, {"a", "b"}, {"e"}}},
		{SlotSelection{IDs: []string{"c"}}, []core.Group{{core.BaseInput}, {"c"}}},
	} {
		got, err := selectGroups("input_slots", stage, c.sel)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%+v: %v, %v; want %v", c.sel, got, err, c.want)
		}
	}
	_, err := selectGroups("input_slots", stage, SlotSelection{IDs: []string{"a", "zz"}})
	if !errors.Is(err, ErrRefused) || !strings.Contains(err.Error(), `input_slots: "zz" not in the child core's active pipeline (it has base_input, a, b, c, d, e)`) {
		t.Fatalf("unknown slot: %v", err)
	}
}
