package pipeline

import (
	"context"
	"errors"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"demiurge.dev/host/core"
)

// ParseChange: the change protocol's shapes, and what it refuses.
func TestParseChange(t *testing.T) {
	good := map[string]Change{
		``: {}, `null`: {}, `{}`: {},
		`{"context": "c"}`:                        {Context: "c"},
		`{"context": "c", "placement": "system"}`: {Context: "c", Placement: "system"},
		`{"refuse": "no"}`:                        {Refuse: "no"},
	}
	for in, want := range good {
		got, err := ParseChange(in)
		if err != nil || got.Context != want.Context || got.Placement != want.Placement || got.Refuse != want.Refuse || got.Replace != nil {
			t.Errorf("ParseChange(%q) = %+v, %v; want %+v", in, got, err, want)
		}
	}
	if c, err := ParseChange(`{"replace": "", "context": "x"}`); err != nil || c.Replace == nil || *c.Replace != "" {
		t.Errorf("an empty replacement is a replacement: %+v, %v", c, err)
	}
	bad := map[string]string{
		`"just text"`:                        "not a change",
		`42`:                                 "not a change",
		`{"context": 3}`:                     "not a change",
		`{"contex": "typo"}`:                 "not a change",
		`{"refuse": "no", "context": "x"}`:   "a refusal comes alone",
		`{"context": "x", "placement": "x"}`: `placement "x"`,
		`{"placement": "system"}`:            "without",
		`{} {}`:                              "more than one",
		`{"context": "` + strings.Repeat("a", MaxChangeBytes) + `"}`: "over the 65536-byte bound",
	}
	for in, want := range bad {
		if _, err := ParseChange(in); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseChange(%.40q) = %v; want an error saying %q", in, err, want)
		}
	}
}

// funcInvoker is the seam RunStage is written against; the host's
// invoker (the authored runtime in the sandbox) is not built yet.
type funcInvoker func(ctx context.Context, s *core.Slot, in SlotInput) (string, error)

func (f funcInvoker) InvokeSlot(ctx context.Context, s *core.Slot, in SlotInput) (string, error) {
	return f(ctx, s, in)
}

func slot(id, policy string) *core.Slot {
	return &core.Slot{ID: id, FailurePolicy: policy, HistoryPolicy: core.HistoryTurn, DefaultPlacement: core.PlaceMessage, TimeoutSeconds: 1}
}

func TestRunStageMergesGroupsInDeclaredOrder(t *testing.T) {
	slots := map[string]*core.Slot{"a": slot("a", core.FailFail), "b": slot("b", core.FailFail), "c": slot("c", core.FailFail)}
	slots["b"].HistoryPolicy = core.HistoryKeep
	aRunning := make(chan struct{})
	var together atomic.Bool
	inv := funcInvoker(func(ctx context.Context, s *core.Slot, in SlotInput) (string, error) {
		switch s.ID {
		case "a":
			close(aRunning)
			time.Sleep(50 * time.Millisecond) // finishes last, merges first
			return `{"context": "from a saw ` + in.Text + `", "replace": "A"}`, nil
		case "b":
			select { // b returns only while a runs: the group is parallel
			case <-aRunning:
				together.Store(true)
			case <-time.After(5 * time.Second):
			}
			return `{"context": "from b", "placement": "system", "replace": "B"}`, nil
		}
		return `{"context": "c saw ` + in.Text + `"}`, nil
	})
	groups := []core.Group{{core.BaseInput}, {"a", "b"}, {"c"}}
	res, err := RunStage(context.Background(), StageInput, groups, slots, inv, "hi")
	if err != nil {
		t.Fatal(err)
	}
	if !together.Load() {
		t.Error("the group's slots did not run at once")
	}
	want := []Context{{"a", "from a saw hi", core.PlaceMessage, false}, {"b", "from b", core.PlaceSystem, true}, {"c", "c saw B", core.PlaceMessage, false}}
	if res.Text != "B" || len(res.Contexts) != 3 {
		t.Fatalf("result = %+v", res)
	}
	for i := range want {
		if res.Contexts[i] != want[i] {
			t.Errorf("context %d = %+v; want %+v", i, res.Contexts[i], want[i])
		}
	}
}

// A parallel group where one slot fails, under each failure_policy; and a
// slot that hangs past timeout_seconds, a malformed and a huge change, a
// refusal.
func TestRunStageFailures(t *testing.T) {
	inv := funcInvoker(func(ctx context.Context, s *core.Slot, in SlotInput) (string, error) {
		switch s.ID {
		case "raises":
			return "", errors.New("raised ValueError: bad slot")
		case "hangs":
			<-ctx.Done()
			return "", ctx.Err()
		case "malformed":
			return `["not", "a", "change"]`, nil
		case "huge":
			return `{"context": "` + strings.Repeat("x", MaxChangeBytes+1) + `"}`, nil
		case "refuses":
			return `{"refuse": "secrets in the message"}`, nil
		}
		return `{"context": "ok"}`, nil
	})
	for _, tt := range []struct {
		bad, policy, want string
	}{
		{"raises", core.FailFail, "pipeline slot raises failed: raised ValueError: bad slot"},
		{"hangs", core.FailFail, "pipeline slot hangs failed: did not finish within timeout_seconds (1s)"},
		{"malformed", core.FailFail, "pipeline slot malformed failed: returned something that is not a change"},
		{"huge", core.FailFail, "over the 65536-byte bound"},
		{"refuses", core.FailSkip, "pipeline slot refuses refused: secrets in the message"},
		{"raises", core.FailSkip, ""},
		{"hangs", core.FailSkip, ""},
		{"malformed", core.FailSkip, ""},
	} {
		t.Run(tt.bad+"/"+tt.policy, func(t *testing.T) {
			slots := map[string]*core.Slot{"good": slot("good", core.FailFail), tt.bad: slot(tt.bad, tt.policy), "after": slot("after", core.FailFail)}
			res, err := RunStage(context.Background(), StageOutput, []core.Group{{"good", tt.bad}, {"after"}}, slots, inv, "answer")
			if tt.want != "" {
				if err == nil || !strings.Contains(err.Error(), tt.want) {
					t.Fatalf("err = %v; want %q", err, tt.want)
				}
				return
			}
			if err != nil {
				t.Fatalf("skip policy: err = %v", err)
			}
			if len(res.Contexts) != 2 || res.Contexts[0].Slot != "good" || res.Contexts[1].Slot != "after" ||
				len(res.Skipped) != 1 || !strings.HasPrefix(res.Skipped[0], tt.bad+": ") {
				t.Errorf("skip policy: result = %+v; want good's and after's context, %s reported skipped", res, tt.bad)
			}
		})
	}
}
