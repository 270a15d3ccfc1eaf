package pack

import (
	"fmt"

	"github.com/codemode-dev/codemode/emit"
	"github.com/codemode-dev/codemode/runtime/upstream"
)

// httpUpstream connects an OpenAPI service.
func (p *Pack) httpUpstream(src Source, ms *emit.ManifestService) (upstream.Upstream, error) {
	return nil, fmt.Errorf("HTTP upstreams are not wired yet")
}
