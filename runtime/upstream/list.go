package upstream

import "context"

// ListTools lists the server's tools now, every page, as a {"tools": [...]}
// document, over the current session (opening one when there is none). The
// runtime uses it to re-check the manifest's pins before a call when its
// last check is old.
func (m *MCP) ListTools(ctx context.Context) ([]byte, error) {
	s, err := m.session(ctx)
	if err != nil {
		return nil, err
	}
	return listTools(ctx, s.cs)
}
