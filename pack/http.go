package pack

import (
	"github.com/codemode-dev/codemode/manifest"
	"github.com/codemode-dev/codemode/runtime/upstream"
)

// httpUpstream connects an OpenAPI service: base_url from the pack, else the
// spec's first server; auth from the pack's auth: section.
func (p *Pack) httpUpstream(src Service, ms *manifest.Service) (upstream.Upstream, error) {
	limit, err := p.maxReply()
	if err != nil {
		return nil, err
	}
	return upstream.NewHTTP(upstream.HTTPConfig{
		BaseURL: src.BaseURL, Servers: ms.Servers, Auth: src.Auth, Security: ms.Security,
		MaxResponse: limit, Redactor: p.Redactor(),
	})
}
