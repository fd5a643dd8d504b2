package main

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
	bolt "go.etcd.io/bbolt"

	"demiurge.dev/host/providers/providertest"
	"demiurge.dev/host/runtime"
)

// modelServers are the scripted model servers of running scripts, by
// work directory.
var modelServers sync.Map

func scriptModel(ts *testscript.TestScript) *providertest.Server {
	s, ok := modelServers.Load(ts.Getenv("WORK"))
	if !ok {
		ts.Fatalf("no model server: start one with 'model KIND SCRIPT.json'")
	}
	return s.(*providertest.Server)
}

// modelCmds are the testscript commands for conversations against a
// scripted model server on loopback (host/providers/providertest):
//
//	model KIND SCRIPT.json   start it; $MODEL_URL is its URL
//	model-requests FILE      write the request bodies it got, one JSON line each
//	model-wait N             wait (up to 30 s) until it got N requests
//	model-remaining N        assert N script steps were left unused
//	foreign-session ID       store a conversation of another principal
//	corrupt-first-message ID overwrite session ID's first stored message with bytes that are not a record
var modelCmds = map[string]func(ts *testscript.TestScript, neg bool, args []string){
	"model": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 2 {
			ts.Fatalf("usage: model KIND SCRIPT.json")
		}
		steps, err := providertest.LoadScript(ts.MkAbs(args[1]))
		ts.Check(err)
		s := providertest.NewServer(args[0], steps)
		modelServers.Store(ts.Getenv("WORK"), s)
		ts.Defer(func() {
			modelServers.Delete(ts.Getenv("WORK"))
			s.Close()
		})
		ts.Setenv("MODEL_URL", s.URL)
	},
	"model-requests": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: model-requests FILE")
		}
		var b strings.Builder
		for _, r := range scriptModel(ts).Requests() {
			line, err := json.Marshal(json.RawMessage(r.Body))
			ts.Check(err)
			b.Write(line)
			b.WriteByte('\n')
		}
		ts.Check(os.WriteFile(ts.MkAbs(args[0]), []byte(b.String()), 0o644))
	},
	"model-wait": func(ts *testscript.TestScript, neg bool, args []string) {
		n, err := strconv.Atoi(args[0])
		if neg || len(args) != 1 || err != nil {
			ts.Fatalf("usage: model-wait N")
		}
		deadline := time.Now().Add(30 * time.Second)
		for len(scriptModel(ts).Requests()) < n {
			if time.Now().After(deadline) {
				ts.Fatalf("the model got %d requests in 30s, want %d", len(scriptModel(ts).Requests()), n)
			}
			time.Sleep(10 * time.Millisecond) // polling the server's request count
		}
	},
	"model-remaining": func(ts *testscript.TestScript, neg bool, args []string) {
		n, err := strconv.Atoi(args[0])
		if neg || len(args) != 1 || err != nil {
			ts.Fatalf("usage: model-remaining N")
		}
		if got := scriptModel(ts).Remaining(); got != n {
			ts.Fatalf("%d script steps left unused, want %d", got, n)
		}
	},
	"corrupt-first-message": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: corrupt-first-message ID")
		}
		stopTestHost(ts.Getenv("DEMIURGE_STATE"))
		db, err := bolt.Open(filepath.Join(ts.Getenv("DEMIURGE_STATE"), "demiurge.db"), 0o600, nil)
		ts.Check(err)
		defer db.Close()
		key := binary.BigEndian.AppendUint64(append([]byte(args[0]), 0), 1)
		ts.Check(db.Update(func(tx *bolt.Tx) error {
			b := tx.Bucket([]byte(runtime.BucketMessages))
			if b.Get(key) == nil {
				return fmt.Errorf("session %s has no first message", args[0])
			}
			return b.Put(key, []byte("{\"role\":\"user\",\"text\":"))
		}))
	},
	"foreign-session": func(ts *testscript.TestScript, neg bool, args []string) {
		if neg || len(args) != 1 {
			ts.Fatalf("usage: foreign-session ID")
		}
		// The store is written directly: a host holding it (the scripts
		// run again through the host) is stopped first.
		stopTestHost(ts.Getenv("DEMIURGE_STATE"))
		store, err := runtime.Open(filepath.Join(ts.Getenv("DEMIURGE_STATE"), "demiurge.db"))
		ts.Check(err)
		defer store.Close()
		ctx := context.Background()
		ts.Check(store.RecordSession(ctx, runtime.SessionRecord{ID: args[0], Principal: "someone-else"}))
		_, err = store.AppendMessages(ctx, args[0], []runtime.MessageRecord{{Role: "user", Text: "someone else's secret plans"}})
		ts.Check(err)
	},
}
