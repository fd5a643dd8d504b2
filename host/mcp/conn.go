package mcp

import (
	"context"
	"demiurge.dev/host/sandboxing"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/mark3labs/mcp-go/client"
	"github.com/mark3labs/mcp-go/client/transport"
	"github.com/mark3labs/mcp-go/mcp"

	"demiurge.dev/host/approval"
	"demiurge.dev/host/core"
	"demiurge.dev/host/policy"
)

// Discovery bounds: a server that offers more (after tools.include and
// tools.exclude) fails with a diagnostic rather than flooding the catalog.
const (
	MaxToolsPerServer = 512
	maxListPages      = 100
	// maxListBytes bounds a server's whole tools/list, all its pages
	// together, by what one message may hold (MaxMessageBytes bounds each
	// page): what it lists is held in memory at discovery, pinned and sent
	// to the model with every request.
	maxListBytes = MaxMessageBytes
	// closeGrace is how long a stdio server has to exit on its own once
	// its stdin is closed, before its process group is killed.
	closeGrace = 200 * time.Millisecond
)

// quietLogger keeps mcp-go's own logging off the operator's terminal (it
// defaults to slog's, which writes to stderr); what matters reaches the
// caller as an error or a state.
var quietLogger = slog.New(slog.NewTextHandler(io.Discard, nil))

// clientInfo is what the host says it is in initialize.
var clientInfo = mcp.Implementation{Name: "demiurge", Version: "0.1.0"}

// rawTool is one tool as the server listed it; InputSchema is the exact
// JSON the server sent.
type rawTool struct {
	Name        string          `json:"name"`
	Description string          `json:"description"`
	InputSchema json.RawMessage `json:"inputSchema"`
	// Annotations are the server's hints, kept only to pin them (pins.go):
	// the host never takes a tool's effect from them.
	Annotations json.RawMessage `json:"annotations,omitempty"`
}

// conn is one live connection to one server, for one plan.
type conn struct {
	plan      *plan
	client    *client.Client
	transport transport.Interface
	cancel    context.CancelFunc
	pgid      int
	// guarded: the group's leader is the helper's guard (stdio.go), which
	// is asked to end its tree before the group is killed.
	guarded  bool
	proc     *stdioProc   // stdio only
	tail     *stderrTail  // stdio only
	http     *http.Client // HTTP only
	stateDir string

	tools    []rawTool
	protocol string
	server   mcp.Implementation

	lost      atomic.Bool
	closeOnce sync.Once
	progress  progressRoutes
	listSeq   atomic.Int64
	// calls counts the tool calls in flight: a server's form is asked
	// about only during one (elicit.go).
	calls atomic.Int64
	// deadlines ends the calls that outlive the call timeout.
	deadlines callDeadlines
}

// dialer opens the transport of a plan; the HTTP one comes from the pool
// (it needs the URL policy).
type dialConfig struct {
	env        []string // allowlisted base environment (stdio)
	stateDir   string
	spawner    *spawner
	httpClient func(*plan) (*http.Client, error)
	sandbox    sandboxing.Config
	// approvals and authority are the connecting turn's: a server's forms
	// are put to the operator through them (the connection dies with the
	// authority).
	approvals     *approval.Resolver
	authority     policy.Authority
	onElicitation func(server string, e Elicitation)
}

// clientCapabilities are what the host declares: forms (elicitation in
// form mode), which only the operator answers.
var clientCapabilities = mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapability{Form: &struct{}{}}}

// newClient is the mcp-go client over tr, speaking the pinned version and
// sending a server's forms to the operator.
func (c *conn) newClient(tr transport.Interface, cfg dialConfig) *client.Client {
	e := &elicitor{c: c, approvals: cfg.approvals, authority: cfg.authority, report: cfg.onElicitation}
	return client.NewClient(tr, client.WithProtocolVersion(c.plan.server.ProtocolVersion),
		client.WithClientCapabilities(clientCapabilities), client.WithElicitationHandler(e))
}

// connect starts or reaches the server, initializes it with the pinned
// protocol version and lists its tools, all within the connect timeout.
// On any failure the connection is closed (the process group killed) and
// the error says which step failed.
func connect(ctx context.Context, p *plan, cfg dialConfig) (*conn, error) {
	// The connection outlives the turn that made it; only its setup is
	// bounded by the turn and the connect timeout.
	connCtx, cancel := context.WithCancel(context.Background())
	c := &conn{plan: p, cancel: cancel, stateDir: cfg.stateDir}
	connectBy := time.Now().Add(p.server.ConnectTimeout)
	tctx, tcancel := context.WithDeadline(ctx, connectBy)
	defer tcancel()

	if err := c.open(connCtx, cfg); err != nil {
		c.abort("start failed")
		return nil, err
	}
	step := "initialize"
	fail := func(err error) (*conn, error) {
		reason := step + " failed"
		if c.proc != nil && c.proc.tooLong.Load() {
			err = fmt.Errorf("%s: %w", step, errLineTooLong)
		} else if errors.Is(ctx.Err(), context.DeadlineExceeded) && !callerDeadlineAfter(ctx, connectBy) {
			// The caller's deadline (a turn's) came first: naming the
			// connect timeout would send the operator to the wrong knob.
			err = fmt.Errorf("no answer to %s before the caller's deadline, which came before the connect timeout of %s: %w; the connection was closed", step, p.server.ConnectTimeout, ctx.Err())
			reason = step + " timed out"
		} else if errors.Is(tctx.Err(), context.DeadlineExceeded) {
			err = fmt.Errorf("no answer to %s within the connect timeout of %s; the connection was closed", step, p.server.ConnectTimeout)
			reason = step + " timed out"
		} else if ctx.Err() != nil {
			err = fmt.Errorf("%s: %w", step, ctx.Err())
		} else {
			err = fmt.Errorf("%s: %w", step, err)
		}
		c.abort(reason)
		return nil, err
	}
	c.client.OnNotification(c.progress.notify)
	req := mcp.InitializeRequest{}
	req.Params.ProtocolVersion = p.server.ProtocolVersion
	req.Params.ClientInfo = clientInfo
	res, err := c.client.Initialize(tctx, req)
	if err != nil {
		return fail(err)
	}
	c.protocol, c.server = res.ProtocolVersion, res.ServerInfo
	if err := checkPinnedProtocol(p.server.ProtocolVersion, c.protocol); err != nil {
		return fail(err)
	}
	step = "tools/list"
	if c.tools, err = c.listTools(tctx); err != nil {
		return fail(err)
	}
	return c, nil
}

// callerDeadlineAfter reports whether ctx has a deadline later than t
// (so that t, the connect timeout, ended the wait and not ctx).
func callerDeadlineAfter(ctx context.Context, t time.Time) bool {
	d, ok := ctx.Deadline()
	return ok && d.After(t)
}

// open builds the transport and client and starts them.
func (c *conn) open(connCtx context.Context, cfg dialConfig) error {
	s := c.plan.server
	switch s.Transport {
	case core.MCPStdio:
		return c.openStdio(connCtx, cfg)
	case core.MCPHTTP:
		hc, err := cfg.httpClient(c.plan)
		if err != nil {
			return err
		}
		opts := []transport.StreamableHTTPCOption{transport.WithHTTPBasicClient(hc), transport.WithHTTPLogger(quietLogger)}
		if !mcp.IsModernProtocol(s.ProtocolVersion) {
			// Before 2026-07-28 a server may send its requests (a form,
			// elicitation/create) on the standalone GET stream rather than
			// on the call's own; closing the transport ends that stream.
			opts = append(opts, transport.WithContinuousListening())
		}
		tr, err := transport.NewStreamableHTTP(s.URL, opts...)
		if err != nil {
			return fmt.Errorf("url: %w", err)
		}
		c.transport, c.http = tr, hc
		c.client = c.newClient(tr, cfg)
		return c.client.Start(connCtx)
	}
	return fmt.Errorf("unknown transport %q", s.Transport)
}

// listTools pages through tools/list on the transport itself: the typed
// ListTools of mcp-go drops top-level anyOf/oneOf/allOf from schemas,
// and schemas must reach the catalog exactly as the server sent them.
func (c *conn) listTools(ctx context.Context) ([]rawTool, error) {
	var out []rawTool
	seen := map[string]bool{}
	cursor := ""
	total := 0
	for page := 0; ; page++ {
		if page == maxListPages {
			return nil, fmt.Errorf("the server sent more than %d pages of tools", maxListPages)
		}
		params := map[string]any{}
		if cursor != "" {
			params["cursor"] = cursor
		}
		req := transport.JSONRPCRequest{
			JSONRPC: mcp.JSONRPC_VERSION, Method: string(mcp.MethodToolsList), Params: params,
			ID: mcp.NewRequestId(fmt.Sprintf("demiurge-list-%d", c.listSeq.Add(1))),
		}
		if mcp.IsModernProtocol(c.protocol) {
			req.Params, req.Header = statelessRequest(c.protocol, mcp.MethodToolsList, params)
		}
		resp, err := c.transport.SendRequest(ctx, req)
		if err != nil {
			return nil, err
		}
		if resp.Error != nil {
			return nil, resp.Error.AsError()
		}
		if total += len(resp.Result); total > maxListBytes {
			return nil, fmt.Errorf("the server's tool list is over %d bytes (%d pages read); nothing of it is offered", maxListBytes, page+1)
		}
		tools, next, err := decodeToolPage(resp.Result)
		if err != nil {
			return nil, err
		}
		out = append(out, tools...)
		if next == "" {
			return out, nil
		}
		if seen[next] {
			return nil, errors.New("the server repeated a page cursor")
		}
		seen[next] = true
		cursor = next
	}
}

// decodeToolPage reads one tools/list result, keeping each input schema's
// bytes as sent.
func decodeToolPage(result []byte) ([]rawTool, string, error) {
	var res struct {
		Tools      []rawTool `json:"tools"`
		NextCursor string    `json:"nextCursor"`
	}
	if err := json.Unmarshal(result, &res); err != nil {
		return nil, "", fmt.Errorf("the tool list is not valid: %w", err)
	}
	return res.Tools, res.NextCursor, nil
}

// alive reports whether the connection can still serve calls: not closed,
// no transport failure seen, and (stdio) its stderr still open, which ends
// when the process dies.
func (c *conn) alive() bool {
	if c.lost.Load() {
		return false
	}
	if c.proc != nil {
		select {
		case <-c.proc.exited:
			return false
		default:
		}
	}
	return true
}

// close ends the connection: stdin closed, a short grace, then the whole
// process group killed; the stderr window is redacted into the log.
func (c *conn) close(reason string) { c.shutdown(reason, closeGrace) }

// abort ends a connection that failed to come up: a server that did not
// answer in time gets no grace.
func (c *conn) abort(reason string) { c.shutdown(reason, 0) }

// endGroup ends the server's processes: a guard is asked first (SIGTERM:
// it kills every descendant, those in sessions of their own too, and
// exits), then the whole group is killed, the guard with it if it has
// not ended within guardWait.
func (c *conn) endGroup() {
	if c.guarded && c.proc != nil {
		select {
		case <-c.proc.exited:
		default:
			_ = c.proc.cmd.Process.Signal(syscall.SIGTERM)
			c.proc.wait(guardWait)
		}
	}
	killGroup(c.pgid)
}

// guardWait bounds the wait for a guard to end its server's tree.
const guardWait = 5 * time.Second

func (c *conn) shutdown(reason string, grace time.Duration) {
	c.closeOnce.Do(func() {
		c.lost.Store(true)
		if c.pgid > 0 {
			t := time.AfterFunc(grace, c.endGroup)
			defer t.Stop()
		}
		if c.client != nil {
			_ = c.client.Close()
		}
		if c.proc != nil {
			c.proc.wait(grace + time.Second)
		}
		c.endGroup()
		if c.proc != nil {
			c.proc.wait(time.Second)
			c.proc.stdout.Close()
		}
		c.cancel()
		c.deadlines.stop()
		if c.http != nil {
			c.http.CloseIdleConnections()
		}
		if c.tail != nil {
			select {
			case <-c.tail.done:
			case <-time.After(time.Second):
			}
			_ = appendStderrLog(c.stateDir, c.plan.server.ID, reason, c.tail.redactedWindow(c.plan.secrets))
		}
	})
}

// call runs one tool call; ctx's end cancels the request at the server
// (notifications/cancelled). A legacy connection sends it itself and
// reads the answer once (toolcall.go); a stateless one goes through
// mcp-go's CallTool.
func (c *conn) call(ctx context.Context, tool string, args json.RawMessage, onProgress progressFunc) (callAnswer, error) {
	req := mcp.CallToolRequest{}
	req.Params.Name = tool
	if len(args) > 0 {
		req.Params.Arguments = args
	}
	if onProgress != nil {
		token, done := c.progress.add(onProgress)
		defer done()
		req.Params.Meta = &mcp.Meta{ProgressToken: token}
	}
	c.calls.Add(1)
	defer c.calls.Add(-1)
	ans, err := c.callOnce(ctx, req)
	if err != nil && errors.Is(err, transport.ErrTransportClosed) {
		c.lost.Store(true)
	}
	return ans, err
}

func (c *conn) callOnce(ctx context.Context, req mcp.CallToolRequest) (callAnswer, error) {
	if !mcp.IsModernProtocol(c.protocol) {
		raw, err := c.sendToolCall(ctx, req.Params)
		if err != nil {
			return callAnswer{}, err
		}
		ans, needsInput, err := readAnswer(raw)
		if !needsInput {
			return ans, err
		}
		// The server asked for input before doing the call (a multi
		// round trip, which only mcp-go drives): the call is sent again
		// through CallTool, whose loop answers the server's questions.
	}
	res, err := c.client.CallTool(ctx, req)
	if err != nil {
		return callAnswer{}, err
	}
	return answerOf(res), nil
}
