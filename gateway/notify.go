package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/auth"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/runtime"
)

// JobsURI is the MCP resource of the calling session's jobs and pending
// wait. It resolves to the session of the request (its _meta
// "codemode/session" name, else the connection's own session), never to
// another session. A client subscribed to it (resources/subscribe) gets
// notifications/resources/updated, and a notifications/message log line
// saying what happened (at level info, logger "codemode", once it has set
// a logging level), when a job of that session ends or is cancelled and
// when its wait resolves: the job ended, the deadline passed, an approver
// approved or denied.
const JobsURI = "codemode://session/jobs"

// DefaultJobsPoll is how often the gateway reads the jobs store of the
// sessions that have subscribers, to notice what this process does not
// see happen: an approval by codemode jobs approve|deny (another
// process), a job ended on another replica, a wait's deadline passing.
// Changes made in this process are noticed at once.
const DefaultJobsPoll = time.Second

// notifyLogger is the logger name of the log lines.
const notifyLogger = "codemode"

// jobsResource is the JSON of JobsURI.
type jobsResource struct {
	Jobs []jobsResourceJob `json:"jobs"`
	// Wait is the session's wait while it holds (run_code is refused).
	Wait *jobsResourceWait `json:"wait"`
	// Resolved says how an approver resolved the last wait, until the
	// session's next program is told.
	Resolved string `json:"resolved,omitempty"`
}

type jobsResourceJob struct {
	Name    string `json:"name"`
	State   string `json:"state"`
	Tool    string `json:"tool"`
	Started string `json:"started"`
	Ended   string `json:"ended,omitempty"`
	Error   string `json:"error,omitempty"`
}

type jobsResourceWait struct {
	ID       string   `json:"id"`
	What     string   `json:"what"`
	Jobs     []string `json:"jobs,omitempty"`
	Deadline string   `json:"deadline"`
	// Calls are the calls held for approval, as a program writes them.
	Calls []string `json:"calls,omitempty"`
}

func jobsView(sj *runtime.SessionJobs, now time.Time) jobsResource {
	v := jobsResource{Jobs: []jobsResourceJob{}, Resolved: sj.Resolved}
	for _, n := range sortedJobs(sj) {
		j := sj.Jobs[n]
		e := jobsResourceJob{Name: j.Name, State: j.State, Tool: j.Tool, Started: j.Started.UTC().Format(time.RFC3339), Error: j.Error}
		if !j.Ended.IsZero() {
			e.Ended = j.Ended.UTC().Format(time.RFC3339)
		}
		v.Jobs = append(v.Jobs, e)
	}
	if w := sj.Wait; w != nil && w.Holds(sj, now) {
		v.Wait = &jobsResourceWait{ID: w.ID, What: w.What(), Jobs: w.Jobs, Deadline: w.Deadline.UTC().Format(time.RFC3339)}
		for _, c := range w.Calls {
			v.Wait.Calls = append(v.Wait.Calls, c.String())
		}
	}
	return v
}

func sortedJobs(sj *runtime.SessionJobs) []string {
	names := make([]string, 0, len(sj.Jobs))
	for n := range sj.Jobs {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// notifier keeps the subscriptions to JobsURI and tells subscribers what
// changed.
type notifier struct {
	s    *Server
	poll time.Duration

	subMu sync.Mutex
	// subs maps each subscribed MCP session to the agent sessions it
	// subscribed for.
	subs    map[*mcp.ServerSession]map[string]bool
	polling bool

	checkMu sync.Mutex // serialises checks; guards seen
	seen    map[string]*seenJobs
}

// seenJobs is what subscribers of an agent session were already told (or
// what was so when they subscribed).
type seenJobs struct {
	ended    map[string]bool // jobs known ended, by name and start
	wait     string          // the wait known resolved
	resolved string          // the approver's resolution known
}

func endedKey(j *runtime.Job) string { return j.Name + "\x00" + j.Started.String() }

func newNotifier(s *Server, poll time.Duration) *notifier {
	if poll <= 0 {
		poll = DefaultJobsPoll
	}
	return &notifier{s: s, poll: poll, subs: map[*mcp.ServerSession]map[string]bool{}, seen: map[string]*seenJobs{}}
}

// requestSession is the agent session of a request: its _meta name (scoped
// by the bearer token, taken from ctx when the SDK gives no extra), else
// the connection's own.
func (s *Server) requestSession(ctx context.Context, ss *mcp.ServerSession, meta mcp.Meta, extra *mcp.RequestExtra) string {
	if extra == nil || extra.TokenInfo == nil {
		if ti := auth.TokenInfoFromContext(ctx); ti != nil {
			extra = &mcp.RequestExtra{TokenInfo: ti}
		}
	}
	return s.namedSession(ss, meta, extra)
}

// subscribeJobs is resources/subscribe: the generated files never change
// (a subscription is accepted and nothing is sent); JobsURI subscribes the
// MCP session to its agent session's jobs; in direct mode, anything else is
// an upstream's resource.
func (s *Server) subscribeJobs(ctx context.Context, req *mcp.SubscribeRequest) error {
	if req.Params == nil {
		return fmt.Errorf("resources/subscribe: no uri")
	}
	uri := req.Params.URI
	if _, ok := s.files[uri]; ok {
		return nil
	}
	if uri != JobsURI && s.cfg.Direct {
		return s.subscribe(ctx, req)
	}
	if uri != JobsURI || req.Session == nil {
		return mcp.ResourceNotFoundError(uri)
	}
	session := s.requestSession(ctx, req.Session, req.Params.Meta, req.Extra)
	s.notify.add(req.Session, session)
	return nil
}

// unsubscribeJobs is resources/unsubscribe: the MCP session's
// subscriptions to JobsURI end (for every agent session it named, as the
// SDK drops them all); in direct mode, an upstream's resource is
// unsubscribed upstream.
func (s *Server) unsubscribeJobs(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	if req.Params == nil {
		return nil
	}
	if _, ok := s.files[req.Params.URI]; !ok && req.Params.URI != JobsURI && s.cfg.Direct {
		return s.unsubscribe(ctx, req)
	}
	if req.Params.URI == JobsURI && req.Session != nil {
		s.notify.drop(req.Session)
	}
	return nil
}

func (n *notifier) add(ss *mcp.ServerSession, session string) {
	// The baseline: what is so now is not news.
	n.checkMu.Lock()
	if _, ok := n.seen[session]; !ok {
		seen := &seenJobs{ended: map[string]bool{}}
		if sj, err := n.s.rt.SessionJobs(session); err == nil {
			n.events(sj, seen, time.Now())
		}
		n.seen[session] = seen
	}
	n.checkMu.Unlock()

	n.subMu.Lock()
	defer n.subMu.Unlock()
	names, ok := n.subs[ss]
	if !ok {
		names = map[string]bool{}
		n.subs[ss] = names
		go func() {
			_ = ss.Wait()
			n.drop(ss)
		}()
	}
	names[session] = true
	if !n.polling {
		n.polling = true
		go n.pollLoop()
	}
}

func (n *notifier) drop(ss *mcp.ServerSession) {
	n.subMu.Lock()
	names := n.subs[ss]
	delete(n.subs, ss)
	n.subMu.Unlock()
	// What the session's subscribers were told goes with the last of them.
	n.checkMu.Lock()
	defer n.checkMu.Unlock()
	for name := range names {
		if len(n.subscribers(name)) == 0 {
			delete(n.seen, name)
		}
	}
}

// subscribers are the MCP sessions subscribed for session.
func (n *notifier) subscribers(session string) []*mcp.ServerSession {
	n.subMu.Lock()
	defer n.subMu.Unlock()
	var out []*mcp.ServerSession
	for ss, names := range n.subs {
		if names[session] {
			out = append(out, ss)
		}
	}
	return out
}

func (n *notifier) subscribed(ss *mcp.ServerSession, session string) bool {
	n.subMu.Lock()
	defer n.subMu.Unlock()
	return n.subs[ss][session]
}

// pollLoop checks every subscribed agent session each poll, and ends when
// there are no subscribers left.
func (n *notifier) pollLoop() {
	t := time.NewTicker(n.poll)
	defer t.Stop()
	for range t.C {
		n.subMu.Lock()
		var sessions []string
		for _, names := range n.subs {
			for name := range names {
				if !slices.Contains(sessions, name) {
					sessions = append(sessions, name)
				}
			}
		}
		if len(sessions) == 0 {
			n.polling = false
			n.subMu.Unlock()
			return
		}
		n.subMu.Unlock()
		for _, session := range sessions {
			n.check(session)
		}
	}
}

// changed is the runtime's OnJobsChange hook: a change made here is
// checked at once (in the background: the hook must not block).
func (n *notifier) changed(session string) {
	if len(n.subscribers(session)) == 0 {
		return
	}
	go n.check(session)
}

// check reads session's jobs, and tells its subscribers what happened
// since they were last told: a log line per event, then one
// notifications/resources/updated.
func (n *notifier) check(session string) {
	n.checkMu.Lock()
	defer n.checkMu.Unlock()
	subs := n.subscribers(session)
	if len(subs) == 0 {
		delete(n.seen, session)
		return
	}
	seen := n.seen[session]
	if seen == nil {
		return // subscribed after this check began: add set no baseline yet
	}
	sj, err := n.s.rt.SessionJobs(session)
	if err != nil {
		return
	}
	events := n.events(sj, seen, time.Now())
	if len(events) == 0 {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	for _, ss := range subs {
		for _, e := range events {
			_ = ss.Log(ctx, &mcp.LoggingMessageParams{Level: "info", Logger: notifyLogger, Data: e})
		}
	}
	// The SDK sends this to every MCP session subscribed to JobsURI;
	// filterUpdated lets through only those subscribed for session.
	_ = n.s.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: JobsURI, Meta: mcp.Meta{SessionMeta: session}})
}

// events are what changed in sj since seen (which they then update): each
// job that ended (or was cancelled), then the wait's resolution.
func (n *notifier) events(sj *runtime.SessionJobs, seen *seenJobs, now time.Time) []string {
	var out []string
	keep := map[string]bool{}
	for _, name := range sortedJobs(sj) {
		j := sj.Jobs[name]
		if j.State == runtime.JobRunning {
			continue
		}
		k := endedKey(j)
		keep[k] = true
		if seen.ended[k] {
			continue
		}
		seen.ended[k] = true
		e := fmt.Sprintf("job %q (%s) ended: %s", j.Name, j.Tool, j.State)
		if j.State == runtime.JobCancelled {
			e = fmt.Sprintf("job %q (%s) was cancelled", j.Name, j.Tool)
		}
		if j.Error != "" && j.State != runtime.JobCancelled {
			e += ": " + j.Error
		}
		out = append(out, e+fmt.Sprintf("; jobs.get(%q) returns its state and result", j.Name))
	}
	for k := range seen.ended {
		if !keep[k] {
			delete(seen.ended, k)
		}
	}
	if sj.Resolved != "" && sj.Resolved != seen.resolved {
		out = append(out, sj.Resolved)
	}
	seen.resolved = sj.Resolved
	if w := sj.Wait; w != nil && !w.Holds(sj, now) && w.ID != seen.wait {
		seen.wait = w.ID
		deadline := w.Deadline.UTC().Format(time.RFC3339)
		switch {
		case len(w.Jobs) == 0:
			out = append(out, fmt.Sprintf("the wait %s for %s reached its deadline (%s) without an approval; run_code in this session runs again, but the call was not approved", w.ID, w.What(), deadline))
		case anyRunning(sj, w.Jobs): // so the deadline passed
			out = append(out, fmt.Sprintf("the wait %s for %s reached its deadline (%s); the job is still running; run_code in this session runs again", w.ID, w.What(), deadline))
		default:
			out = append(out, fmt.Sprintf("the wait %s for %s is over: the job ended; run_code in this session runs again", w.ID, w.What()))
		}
	}
	return out
}

func anyRunning(sj *runtime.SessionJobs, names []string) bool {
	for _, n := range names {
		if j, ok := sj.Jobs[n]; ok && j.State == runtime.JobRunning {
			return true
		}
	}
	return false
}

// filterUpdated is a sending middleware: a notifications/resources/updated
// for JobsURI reaches an MCP session only if it subscribed for the agent
// session it names.
func (n *notifier) filterUpdated(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "notifications/resources/updated" {
			if p, ok := req.GetParams().(*mcp.ResourceUpdatedNotificationParams); ok && p.URI == JobsURI {
				name, _ := p.Meta[SessionMeta].(string)
				ss, _ := req.GetSession().(*mcp.ServerSession)
				if name == "" || ss == nil || !n.subscribed(ss, name) {
					return nil, nil
				}
			}
		}
		return next(ctx, method, req)
	}
}

// addJobsResource offers JobsURI and installs the notifier.
func (s *Server) addJobsResource() {
	s.srv.AddResource(&mcp.Resource{
		URI: JobsURI, Name: "session jobs", MIMEType: "application/json",
		Description: "This session's jobs (name, state, tool, started, ended, error; results only through jobs.get in a program) and its pending wait (what, id, deadline, held calls) while it holds. Subscribe (resources/subscribe) to be notified when a job ends or is cancelled and when the wait resolves.",
	}, func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		session := s.requestSession(ctx, req.Session, req.Params.Meta, req.Extra)
		sj, err := s.rt.SessionJobs(session)
		if err != nil {
			return nil, fmt.Errorf("reading this session's jobs: %v", err)
		}
		b, err := json.MarshalIndent(jobsView(sj, time.Now()), "", "  ")
		if err != nil {
			return nil, err
		}
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: JobsURI, MIMEType: "application/json", Text: string(b) + "\n"}}}, nil
	})
	s.srv.AddSendingMiddleware(s.notify.filterUpdated)
	s.rt.OnJobsChange(s.notify.changed)
}

// subscribeHint is what the agent is told about subscribing.
const subscribeHint = "a client subscribed to the resource " + JobsURI + " (resources/subscribe) is notified when it resolves"
