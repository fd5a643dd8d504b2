package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"

	"demiurge.dev/cmd/internal/frontargs"
	"demiurge.dev/cmd/internal/frontview"
	"demiurge.dev/host/runtime"
	"demiurge.dev/shared/hostv1"
)

// audit is `demiurge audit` through the running host, as the full CLI's
// auditEvents asks it and prints it with the same code. Reading the log
// changes nothing, so whatever goes wrong before it prints hands over
// (handed=true, nothing printed): the full CLI asks again and says why.
func audit(ctx context.Context, req frontargs.Request, state string) (code int, handed bool) {
	cl, ok := dialNeeding(ctx, req, state, 1, "audit")
	if !ok {
		return 0, true
	}
	defer cl.Close()
	res, err := cl.Audit(ctx, &hostv1.AuditRequest{Tool: req.Tool, Kind: req.Kind, Limit: int32(req.Limit)})
	if err != nil {
		return 0, true
	}
	var evs []runtime.Event
	if err := json.Unmarshal(res.Events, &evs); err != nil {
		return 0, true
	}
	// Rendered whole first: the width and colour are stdout's.
	var out bytes.Buffer
	if err := frontview.Audit(&out, evs, req.JSON, frontview.OutputWidth(os.Stdout), frontview.ColourOn(os.Stdout, req.NoColor)); err != nil {
		return 0, true
	}
	if _, err := os.Stdout.Write(out.Bytes()); err != nil {
		fmt.Fprintf(os.Stderr, "demiurge: %v\n", err)
		return 1, false
	}
	return 0, false
}
