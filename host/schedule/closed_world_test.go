package schedule

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

// leafFields lists the Go field paths of t's fields, descending into the
// schedule's own structs (Timing, Budget, Lease); other types (times,
// pointers, slices, scalars) are leaves.
func leafFields(t reflect.Type, prefix string) []string {
	var out []string
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		path := prefix + f.Name
		if f.Type.Kind() == reflect.Struct && f.Type.PkgPath() == t.PkgPath() {
			out = append(out, leafFields(f.Type, path+".")...)
			continue
		}
		out = append(out, path)
	}
	return out
}

// perturb sets the field at path of sc to a value other than its own, or
// says it cannot (a kind this test does not know: teach it).
func perturb(t *testing.T, sc *Schedule, path string) {
	t.Helper()
	f := reflect.ValueOf(sc).Elem()
	for _, name := range strings.Split(path, ".") {
		f = f.FieldByName(name)
	}
	if !f.CanSet() {
		t.Fatalf("field %s cannot be set: an unexported field is in no JSON and no fingerprint; decide about it", path)
	}
	switch {
	case f.Type() == reflect.TypeOf(time.Time{}):
		f.Set(reflect.ValueOf(f.Interface().(time.Time).Add(time.Hour + 7*time.Second)))
	case f.Kind() == reflect.String:
		f.SetString(f.String() + "x")
	case f.Kind() == reflect.Int || f.Kind() == reflect.Int64:
		f.SetInt(f.Int() + 7)
	case f.Kind() == reflect.Bool:
		f.SetBool(!f.Bool())
	case f.Kind() == reflect.Slice && f.Type().Elem().Kind() == reflect.String:
		f.Set(reflect.Append(f, reflect.ValueOf("extra_tool")))
	case f.Kind() == reflect.Pointer:
		if f.IsNil() {
			f.Set(reflect.New(f.Type().Elem()))
		} else {
			f.SetZero()
		}
	default:
		t.Fatalf("field %s of type %s: this test cannot change it; teach perturb", path, f.Type())
	}
}

func fullSchedule() Schedule {
	at := time.Date(2026, 12, 6, 3, 0, 0, 0, time.UTC)
	return Schedule{ID: "sch_1", Prompt: "p", CoreID: "default", Timing: Timing{EverySeconds: 3600, Anchor: at},
		Tools: []string{"read_file"}, Budget: DefaultBudget, ResultFile: "ci/out.md", Missed: MissedSkip, GraceSeconds: 60,
		Overlap: OverlapSkip, Lease: Lease{Tools: []string{"read_file", "write_file"}, Paths: []string{"ci/**"}, Commands: []string{"go test *"},
			Expires: at.Add(24 * time.Hour), CoreRevision: "rev", Catalog: "cat", Workspace: "/w", ApprovedBy: "op", ApprovedAt: at},
		Principal: "alice", Session: "ses_a", Created: at, Updated: at, Next: at.Add(time.Hour)}
}

// TestEveryScheduleFieldIsApprovedOrListed: the approval fingerprint is
// closed world. Every field of the schedule record changes it, except
// those notApproved lists (run state, record times, the approval and
// binding it makes), which do not; a field added to the record without
// deciding is in the fingerprint, and this test names it until it is
// listed here as approved or in notApproved with a reason. A field that
// never reaches the hash (json:"-", unexported) fails here too.
func TestEveryScheduleFieldIsApprovedOrListed(t *testing.T) {
	approved := map[string]bool{
		"ID": true, "Prompt": true, "CoreID": true,
		"Timing.Cron": true, "Timing.Zone": true, "Timing.EverySeconds": true, "Timing.At": true,
		"Tools": true, "Budget.Steps": true, "Budget.OutputTokens": true, "Budget.WallSeconds": true,
		"ResultFile": true, "Missed": true, "GraceSeconds": true, "Overlap": true,
		"Lease.Tools": true, "Lease.Paths": true, "Lease.Commands": true, "Lease.Expires": true,
		"Principal": true, "Session": true,
	}
	fields := leafFields(reflect.TypeOf(Schedule{}), "")
	known := map[string]bool{}
	for _, path := range fields {
		known[path] = true
		_, out := notApproved[path]
		if out == approved[path] {
			t.Errorf("field %s: decide whether an approval trusts it (approved here, or notApproved with a reason)", path)
			continue
		}
		sc := fullSchedule()
		before := Fingerprint(sc, "rev", "cat", "/w")
		perturb(t, &sc, path)
		changed := Fingerprint(sc, "rev", "cat", "/w") != before
		if approved[path] && !changed {
			t.Errorf("field %s is approved but changing it leaves the fingerprint as it was", path)
		}
		if out && changed {
			t.Errorf("field %s is not approved (%s) but changes the fingerprint", path, notApproved[path])
		}
	}
	for path := range notApproved {
		if !known[path] {
			t.Errorf("notApproved lists %s, which the schedule has not", path)
		}
	}
	for path := range approved {
		if !known[path] {
			t.Errorf("approved lists %s, which the schedule has not", path)
		}
	}
	sc := fullSchedule()
	for _, b := range [][3]string{{"revx", "cat", "/w"}, {"rev", "catx", "/w"}, {"rev", "cat", "/w2"}} {
		if Fingerprint(sc, b[0], b[1], b[2]) == Fingerprint(sc, "rev", "cat", "/w") {
			t.Errorf("binding %v does not change the fingerprint", b)
		}
	}
}

// TestAModelsUpdateOfAnyApprovedFieldDropsTheApproval: runsMore is closed
// world over the approved part: changing any approved field but the
// prompt and the ones it judges as a narrowing (budget, grace, missed,
// overlap, tools) counts as running more; run state does not.
func TestAModelsUpdateOfAnyApprovedFieldDropsTheApproval(t *testing.T) {
	judged := map[string]bool{"Prompt": true, "Budget.Steps": true, "Budget.OutputTokens": true, "Budget.WallSeconds": true,
		"GraceSeconds": true, "Missed": true, "Overlap": true, "Tools": true}
	for _, path := range leafFields(reflect.TypeOf(Schedule{}), "") {
		before := fullSchedule()
		after := before
		after.Tools, after.Lease.Tools = append([]string(nil), before.Tools...), append([]string(nil), before.Lease.Tools...)
		perturb(t, &after, path)
		_, out := notApproved[path]
		switch got := runsMore(before, after); {
		case path == "Prompt" && got:
			t.Errorf("a new prompt (which approves nothing) dropped the approval")
		case out && got:
			t.Errorf("%s (not approved: %s) dropped the approval", path, notApproved[path])
		case !out && !judged[path] && !got:
			t.Errorf("a model's change of %s kept the approval", path)
		}
	}
	// Tools: a tool the runs could not call before drops it, even one the
	// lease names; fewer keep it.
	before := fullSchedule()
	wider, fewer, all := before, before, before
	fewer.Tools = []string{"read_file"}
	wider.Tools = []string{"read_file", "write_file"}
	all.Tools = nil
	before.Tools = []string{"write_file", "read_file"}
	if !runsMore(fullSchedule(), wider) || !runsMore(fullSchedule(), all) {
		t.Error("tools the schedule did not run with (named by the lease) kept the approval")
	}
	if runsMore(before, fewer) {
		t.Error("fewer tools dropped the approval")
	}
}

// fingerprintV1 is stop 48's fingerprint (the fields listed by hand), as
// an operator who read `schedules show` from a host before stop 52 holds.
func fingerprintV1(sc Schedule, revision, catalog, workspace string) string {
	tm := sc.Timing
	tm.Anchor = time.Time{}
	covered := struct {
		ID, Prompt, CoreID         string
		Timing                     Timing
		Tools                      []string
		Budget                     Budget
		ResultFile, Missed         string
		Grace                      int64
		Overlap                    string
		LeaseTools, Paths, Cmds    []string
		Expires                    time.Time
		Revision, Catalog, WorkDir string
	}{sc.ID, sc.Prompt, sc.CoreID, tm, sc.Tools, sc.Budget, sc.ResultFile, sc.Missed, sc.GraceSeconds, sc.Overlap,
		sc.Lease.Tools, sc.Lease.Paths, sc.Lease.Commands, sc.Lease.Expires.UTC(), revision, catalog, workspace}
	b, _ := json.Marshal(covered)
	sum := sha256.Sum256(append([]byte("demiurge schedule approval v1\n"), b...))
	return hex.EncodeToString(sum[:])[:FingerprintLen]
}

// TestAFingerprintOfTheOldEncodingApprovesNothing: the encoding changed
// at stop 52 (v2, closed world); a fingerprint an older host printed is
// refused like any other that does not match (read it again), never
// accepted.
func TestAFingerprintOfTheOldEncodingApprovesNothing(t *testing.T) {
	r := newRig(t)
	ctx := context.Background()
	sc, err := r.mgr.Create(ctx, Spec{Prompt: ptr("p"), EverySeconds: ptr(int64(3600)),
		Lease: &LeaseSpec{Tools: []string{"read_file"}, Paths: []string{"ci/**"}}}, "alice", "ses_a")
	if err != nil {
		t.Fatal(err)
	}
	old := fingerprintV1(*sc, r.env.revision, r.env.catalog, r.env.workspace)
	_, err = r.mgr.Approve(ctx, sc.ID, "operator", 1, old)
	if !errors.Is(err, ErrInvalid) || !strings.Contains(err.Error(), "read it again with `demiurge schedules show "+sc.ID+"`") {
		t.Fatalf("a v1 fingerprint: approve answered %v", err)
	}
	if got, _ := r.mgr.Store.Get(sc.ID); got.Lease.Approved() {
		t.Fatal("a v1 fingerprint approved the schedule")
	}
	if _, err := r.approve(sc.ID, 1); err != nil {
		t.Fatalf("the fingerprint shown now: %v", err)
	}
}
