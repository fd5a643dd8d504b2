package mcp

import (
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"

	"github.com/mark3labs/mcp-go/mcp"
)

// progressFunc receives one notifications/progress of a call.
type progressFunc func(message string, fraction float64)

// progressRoutes sends each server's notifications/progress to the call
// whose progress token it names; notifications for tokens no call holds
// (ended calls, made-up tokens) are dropped.
type progressRoutes struct {
	next   atomic.Int64
	routes sync.Map // token string → progressFunc
}

// add gives a call a fresh token; the returned func ends the route.
func (p *progressRoutes) add(fn progressFunc) (token string, done func()) {
	token = "demiurge-" + strconv.FormatInt(p.next.Add(1), 10)
	p.routes.Store(token, fn)
	return token, func() { p.routes.Delete(token) }
}

// notify handles one notification from the server.
func (p *progressRoutes) notify(n mcp.JSONRPCNotification) {
	if n.Method != "notifications/progress" {
		return
	}
	f := n.Params.AdditionalFields
	token, _ := f["progressToken"].(string)
	fn, ok := p.routes.Load(token)
	if !ok {
		return
	}
	msg, _ := f["message"].(string)
	done, _ := f["progress"].(float64)
	total, _ := f["total"].(float64)
	fraction := 0.0
	if total > 0 && done >= 0 && done <= total {
		fraction = done / total
	}
	if msg == "" {
		msg = fmt.Sprintf("%g", done)
		if total > 0 {
			msg += fmt.Sprintf(" of %g", total)
		}
	}
	fn.(progressFunc)(msg, fraction)
}
