package runtime

import (
	"reflect"
	"testing"
)

func TestEventsQuery(t *testing.T) {
	s, _ := openTemp(t)
	defer s.Close()
	// seq: 1..6
	for _, ev := range []Event{
		{Kind: "tool.call", Session: "a", Tool: "read_file"},
		{Kind: "tool.call", Session: "b", Tool: "write_file"},
		{Kind: "approval", Session: "a", Tool: "write_file"},
		{Kind: "tool.call", Session: "a", Tool: "write_file"},
		{Kind: "task", Session: "b"},
		{Kind: "tool.call", Session: "a", Tool: "read_file"},
	} {
		mustAppend(t, s, ev)
	}
	for _, tc := range []struct {
		name string
		q    EventQuery
		want []uint64
	}{
		{"all", EventQuery{}, []uint64{1, 2, 3, 4, 5, 6}},
		{"since", EventQuery{Since: 4}, []uint64{5, 6}},
		{"since past end", EventQuery{Since: 9}, nil},
		{"since max", EventQuery{Since: ^uint64(0)}, nil},
		{"before", EventQuery{Before: 3}, []uint64{1, 2}},
		{"since and before", EventQuery{Since: 1, Before: 5}, []uint64{2, 3, 4}},
		{"kind", EventQuery{Kind: "tool.call"}, []uint64{1, 2, 4, 6}},
		{"session", EventQuery{Session: "b"}, []uint64{2, 5}},
		{"tool", EventQuery{Tool: "write_file"}, []uint64{2, 3, 4}},
		{"kind session tool", EventQuery{Kind: "tool.call", Session: "a", Tool: "read_file"}, []uint64{1, 6}},
		{"limit", EventQuery{Limit: 2}, []uint64{1, 2}},
		{"newest first", EventQuery{NewestFirst: true}, []uint64{6, 5, 4, 3, 2, 1}},
		{"newest first limit", EventQuery{NewestFirst: true, Limit: 2}, []uint64{6, 5}},
		{"newest first since", EventQuery{NewestFirst: true, Since: 3}, []uint64{6, 5, 4}},
		{"newest first before", EventQuery{NewestFirst: true, Before: 3}, []uint64{2, 1}},
		{"newest first before past end", EventQuery{NewestFirst: true, Before: 100, Limit: 1}, []uint64{6}},
		{"newest first filtered", EventQuery{NewestFirst: true, Kind: "tool.call", Limit: 3}, []uint64{6, 4, 2}},
		{"no match", EventQuery{Kind: "nothing"}, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			evs, err := s.Events(tc.q)
			if err != nil {
				t.Fatal(err)
			}
			var got []uint64
			for _, ev := range evs {
				got = append(got, ev.Seq)
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Fatalf("seqs %v, want %v", got, tc.want)
			}
		})
	}
}
