package gateway

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/runtime/upstream"
)

// Direct mode passes an MCP upstream through unchanged, beside its granted
// tools: a call's content blocks (images stay images), its log messages,
// progress, elicitation and sampling requests go between the upstream and
// the agent's client; the upstream's resources, resource templates and
// prompts are offered as the gateway's own, read, got, subscribed and
// completed on the upstream.

// directProtocolVersions are the versions direct mode negotiates: every
// version go-sdk supports up to 2025-11-25.
func directProtocolVersions() []string {
	var out []string
	for _, v := range mcp.SupportedProtocolVersions() {
		if v <= "2025-11-25" {
			out = append(out, v)
		}
	}
	return out
}

// passListTimeout bounds listing an upstream's resources and prompts when
// the server starts.
const passListTimeout = 30 * time.Second

// mcpUpstream is an upstream the gateway can pass through.
type mcpUpstream interface {
	Session(ctx context.Context) (*mcp.ClientSession, error)
	EnableForwarding()
	Redactor() *upstream.Redactor
}

// passthrough is what direct mode offers of each upstream: which service
// holds each prompt, resource and template.
type passthrough struct {
	prompts   map[string]ir.ServiceName
	resources map[string]ir.ServiceName
	templates []passTemplate
}

type passTemplate struct {
	uriTemplate string
	service     ir.ServiceName
}

func (s *Server) upstreamOf(svc ir.ServiceName) (mcpUpstream, bool) {
	up, ok := s.rt.Upstream(svc).(mcpUpstream)
	return up, ok
}

// forward is the Forward of one direct call: what the upstream sends while
// it runs goes to the session that made the call, on the call's stream.
func forward(ctx context.Context, req *mcp.CallToolRequest) *upstream.Forward {
	ss := req.Session
	if ss == nil {
		return &upstream.Forward{}
	}
	f := &upstream.Forward{
		Elicit: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) { return ss.Elicit(ctx, p) },
		Sample: func(_ context.Context, p *mcp.CreateMessageParams) (*mcp.CreateMessageResult, error) {
			return ss.CreateMessage(ctx, p)
		},
		Log: func(_ context.Context, p *mcp.LoggingMessageParams) { _ = ss.Log(ctx, p) },
		Progress: func(_ context.Context, p *mcp.ProgressNotificationParams) {
			_ = ss.NotifyProgress(ctx, p)
		},
	}
	if req.Params != nil {
		f.ProgressToken = req.Params.GetProgressToken()
	}
	return f
}

// addPassthrough lists every MCP upstream's resources, templates and
// prompts and offers them. An upstream that cannot be listed offers none
// (its tools still work); logf says so.
func (s *Server) addPassthrough(logf func(string, ...any)) {
	s.pass = &passthrough{prompts: map[string]ir.ServiceName{}, resources: map[string]ir.ServiceName{}}
	for _, sv := range s.rt.Manifest().Services {
		up, ok := s.upstreamOf(sv.Name)
		if !ok {
			continue
		}
		up.EnableForwarding()
		ctx, cancel := context.WithTimeout(context.Background(), passListTimeout)
		err := s.passService(ctx, sv.Name, up)
		cancel()
		if err != nil && logf != nil {
			logf("service %s: its resources and prompts are not offered: %v", sv.Name, err)
		}
	}
}

func (s *Server) passService(ctx context.Context, svc ir.ServiceName, up mcpUpstream) error {
	cs, err := up.Session(ctx)
	if err != nil {
		return err
	}
	caps := cs.InitializeResult().Capabilities
	if caps == nil {
		return nil
	}
	if caps.Resources != nil {
		for r, err := range cs.Resources(ctx, nil) {
			if err != nil {
				return err
			}
			if _, dup := s.pass.resources[r.URI]; dup || s.files[r.URI] != nil {
				continue
			}
			s.pass.resources[r.URI] = svc
			s.srv.AddResource(r, s.readPassed(svc))
		}
		for t, err := range cs.ResourceTemplates(ctx, nil) {
			if err != nil {
				return err
			}
			s.pass.templates = append(s.pass.templates, passTemplate{t.URITemplate, svc})
			s.srv.AddResourceTemplate(t, s.readPassed(svc))
		}
	}
	if caps.Prompts != nil {
		for p, err := range cs.Prompts(ctx, nil) {
			if err != nil {
				return err
			}
			if _, dup := s.pass.prompts[p.Name]; dup {
				continue
			}
			s.pass.prompts[p.Name] = svc
			name := p.Name
			s.srv.AddPrompt(p, func(ctx context.Context, req *mcp.GetPromptRequest) (*mcp.GetPromptResult, error) {
				cs, up, err := s.passSession(ctx, svc)
				if err != nil {
					return nil, err
				}
				params := *req.Params
				params.Name = name
				res, err := cs.GetPrompt(ctx, &params)
				if err != nil {
					return nil, redactErr(up, err)
				}
				return redacted(up, res)
			})
		}
	}
	return nil
}

func (s *Server) passSession(ctx context.Context, svc ir.ServiceName) (*mcp.ClientSession, mcpUpstream, error) {
	up, ok := s.upstreamOf(svc)
	if !ok {
		return nil, nil, fmt.Errorf("service %s has no MCP upstream", svc)
	}
	cs, err := up.Session(ctx)
	if err != nil {
		return nil, nil, err
	}
	return cs, up, nil
}

func (s *Server) readPassed(svc ir.ServiceName) mcp.ResourceHandler {
	return func(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		cs, up, err := s.passSession(ctx, svc)
		if err != nil {
			return nil, err
		}
		res, err := cs.ReadResource(ctx, req.Params)
		if err != nil {
			return nil, redactErr(up, err)
		}
		return redacted(up, res)
	}
}

// serviceOfURI is the upstream holding a resource URI: a listed resource,
// else the first template whose fixed prefix the URI has.
func (s *Server) serviceOfURI(uri string) (ir.ServiceName, bool) {
	if s.pass == nil {
		return "", false
	}
	if svc, ok := s.pass.resources[uri]; ok {
		return svc, true
	}
	for _, t := range s.pass.templates {
		prefix, _, _ := strings.Cut(t.uriTemplate, "{")
		if strings.HasPrefix(uri, prefix) {
			return t.service, true
		}
	}
	return "", false
}

func (s *Server) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	svc, ok := s.serviceOfURI(req.Params.URI)
	if !ok {
		return mcp.ResourceNotFoundError(req.Params.URI)
	}
	cs, up, err := s.passSession(ctx, svc)
	if err != nil {
		return err
	}
	return redactErr(up, cs.Subscribe(ctx, req.Params))
}

func (s *Server) unsubscribe(ctx context.Context, req *mcp.UnsubscribeRequest) error {
	svc, ok := s.serviceOfURI(req.Params.URI)
	if !ok {
		return mcp.ResourceNotFoundError(req.Params.URI)
	}
	cs, up, err := s.passSession(ctx, svc)
	if err != nil {
		return err
	}
	return redactErr(up, cs.Unsubscribe(ctx, req.Params))
}

// complete answers completion/complete: in direct mode, by the upstream
// that holds the prompt or template; otherwise (code mode has no prompts
// or templates with arguments) with an empty list.
func (s *Server) complete(ctx context.Context, req *mcp.CompleteRequest) (*mcp.CompleteResult, error) {
	none := &mcp.CompleteResult{Completion: mcp.CompletionResultDetails{Values: []string{}}}
	if s.pass == nil || req.Params == nil || req.Params.Ref == nil {
		return none, nil
	}
	var svc ir.ServiceName
	var ok bool
	switch req.Params.Ref.Type {
	case "ref/prompt":
		svc, ok = s.pass.prompts[req.Params.Ref.Name]
	case "ref/resource":
		for _, t := range s.pass.templates {
			if t.uriTemplate == req.Params.Ref.URI {
				svc, ok = t.service, true
				break
			}
		}
	}
	if !ok {
		return none, nil
	}
	cs, up, err := s.passSession(ctx, svc)
	if err != nil {
		return nil, err
	}
	if cs.InitializeResult().Capabilities.Completions == nil {
		return none, nil
	}
	res, err := cs.Complete(ctx, req.Params)
	if err != nil {
		return nil, redactErr(up, err)
	}
	return redacted(up, res)
}

// redacted passes a result through the upstream's redactor, as tool
// results are: its JSON form with every secret replaced.
func redacted[T any](up mcpUpstream, res *T) (*T, error) {
	b, err := json.Marshal(res)
	if err != nil {
		return nil, err
	}
	red := up.Redactor().String(string(b))
	if red == string(b) {
		return res, nil
	}
	out := new(T)
	if err := json.Unmarshal([]byte(red), out); err != nil {
		return nil, err
	}
	return out, nil
}

func redactErr(up mcpUpstream, err error) error {
	if err == nil {
		return nil
	}
	return up.Redactor().Error(err)
}
