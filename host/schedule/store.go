package schedule

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"
	"time"

	"demiurge.dev/host/runtime"
)

// Store keeps schedules and their runs in the host's runtime store.
type Store struct {
	RT *runtime.Store
	// cache, when set (NewStore), keeps the decoded list between writes:
	// every wake and every listing reads it, and decoding 1,000 records
	// is most of a listing's time. Every write of this process goes
	// through Update, which drops it; the host lock makes this process
	// the only writer.
	cache *listCache
}

type listCache struct {
	mu  sync.Mutex
	gen uint64
	all []Schedule
	ok  bool
}

// NewStore is a Store over rt with its list cache.
func NewStore(rt *runtime.Store) Store { return Store{RT: rt, cache: &listCache{}} }

// ErrNotFound is the answer for a schedule id that does not exist.
var ErrNotFound = errors.New("no such schedule")

const pauseAllKey = "pause_all"

// NewID is a fresh schedule or run id.
func NewID(prefix string) string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return prefix + hex.EncodeToString(b[:])
}

// Get reads one schedule.
func (s Store) Get(id string) (*Schedule, error) {
	v, err := s.RT.ScheduleGet(runtime.ScheduleDefs, id)
	if err != nil {
		return nil, err
	}
	if v == nil {
		return nil, fmt.Errorf("%w: %q", ErrNotFound, id)
	}
	var sc Schedule
	if err := json.Unmarshal(v, &sc); err != nil {
		return nil, fmt.Errorf("schedule %s: stored record unreadable: %w", id, err)
	}
	return &sc, nil
}

// List reads every schedule, in id order.
func (s Store) List() ([]Schedule, error) {
	c := s.cache
	if c == nil {
		return s.list()
	}
	c.mu.Lock()
	if c.ok {
		out := slices.Clone(c.all)
		c.mu.Unlock()
		return out, nil
	}
	gen := c.gen
	c.mu.Unlock()
	all, err := s.list()
	if err != nil {
		return nil, err
	}
	c.mu.Lock()
	if c.gen == gen { // no write since the read began
		c.all, c.ok = all, true
	}
	c.mu.Unlock()
	return slices.Clone(all), nil
}

func (s Store) list() ([]Schedule, error) {
	var out []Schedule
	var derr error
	err := s.RT.ScheduleScan(runtime.ScheduleDefs, "", func(key string, v []byte) bool {
		var sc Schedule
		if err := json.Unmarshal(v, &sc); err != nil {
			derr = fmt.Errorf("schedule %s: stored record unreadable: %w", key, err)
			return false
		}
		out = append(out, sc)
		return true
	})
	if err == nil {
		err = derr
	}
	return out, err
}

// Update changes one schedule in one transaction: fn gets the stored
// schedule (ErrNotFound when there is none and create is false) and
// returns the audit event to write with it; fn returning delete=true
// removes it.
func (s Store) Update(ctx context.Context, id string, create bool, fn func(sc *Schedule) (ev *runtime.Event, remove bool, err error)) (*Schedule, error) {
	var out *Schedule
	if c := s.cache; c != nil {
		defer func() { // after the commit: a list read later sees it
			c.mu.Lock()
			c.gen++
			c.all, c.ok = nil, false
			c.mu.Unlock()
		}()
	}
	err := s.RT.ScheduleUpdate(ctx, runtime.ScheduleDefs, id, func(old []byte) ([]byte, *runtime.Event, error) {
		sc := &Schedule{}
		switch {
		case old == nil && !create:
			return nil, nil, fmt.Errorf("%w: %q", ErrNotFound, id)
		case old != nil && create:
			return nil, nil, fmt.Errorf("schedule id %s is taken", id)
		case old != nil:
			if err := json.Unmarshal(old, sc); err != nil {
				return nil, nil, fmt.Errorf("schedule %s: stored record unreadable: %w", id, err)
			}
		}
		ev, remove, err := fn(sc)
		if err != nil {
			return nil, nil, err
		}
		if remove {
			return nil, ev, nil
		}
		b, err := json.Marshal(sc)
		out = sc
		return b, ev, err
	})
	return out, err
}

func runKey(schedule, run string) string { return schedule + "\x00" + run }

// PutRun stores a run record, with its audit event in the same commit.
func (s Store) PutRun(ctx context.Context, r Run, ev *runtime.Event) error {
	b, err := json.Marshal(r)
	if err != nil {
		return err
	}
	return s.RT.ScheduleUpdate(ctx, runtime.ScheduleRuns, runKey(r.Schedule, r.ID), func([]byte) ([]byte, *runtime.Event, error) {
		return b, ev, nil
	})
}

// HasRun reports whether run id of schedule is recorded.
func (s Store) HasRun(schedule, id string) (bool, error) {
	v, err := s.RT.ScheduleGet(runtime.ScheduleRuns, runKey(schedule, id))
	return v != nil, err
}

// Runs lists a schedule's recorded runs, newest first, at most limit.
func (s Store) Runs(schedule string, limit int) ([]Run, error) {
	var out []Run
	err := s.RT.ScheduleScanReverse(runtime.ScheduleRuns, schedule+"\x00", func(_ string, v []byte) bool {
		var r Run
		if json.Unmarshal(v, &r) == nil {
			out = append(out, r)
		}
		return limit <= 0 || len(out) < limit
	})
	return out, err
}

// DeleteRuns removes a deleted schedule's run records.
func (s Store) DeleteRuns(ctx context.Context, schedule string) error {
	var keys []string
	if err := s.RT.ScheduleScan(runtime.ScheduleRuns, schedule+"\x00", func(k string, _ []byte) bool {
		keys = append(keys, k)
		return true
	}); err != nil {
		return err
	}
	for _, k := range keys {
		if err := s.RT.ScheduleUpdate(ctx, runtime.ScheduleRuns, k, func([]byte) ([]byte, *runtime.Event, error) { return nil, nil, nil }); err != nil {
			return err
		}
	}
	return nil
}

// PausedAll reads the operator's pause-all switch.
func (s Store) PausedAll() (bool, error) {
	v, err := s.RT.ScheduleGet(runtime.ScheduleControl, pauseAllKey)
	return v != nil, err
}

// SetPausedAll sets the switch, audited.
func (s Store) SetPausedAll(ctx context.Context, on bool, by string, now time.Time) error {
	data, _ := json.Marshal(map[string]any{"paused_all": on, "by": by})
	ev := &runtime.Event{Time: now, Kind: "schedule.pause_all", Data: data}
	return s.RT.ScheduleUpdate(ctx, runtime.ScheduleControl, pauseAllKey, func([]byte) ([]byte, *runtime.Event, error) {
		if !on {
			return nil, ev, nil
		}
		return []byte(`{"on":true}`), ev, nil
	})
}
