package gateway

import "time"

// SetMaxReadLines lets tests cut reads short; it returns the old value.
func SetMaxReadLines(n int) int {
	old := maxReadLines
	maxReadLines = n
	return old
}

// LiveSessions counts the MCP sessions the server holds and the agent
// sessions the gateway tracks.
func (s *Server) LiveSessions() (mcpSessions, agentSessions int) {
	for range s.srv.Sessions() {
		mcpSessions++
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	return mcpSessions, len(s.sessions)
}

// AgentSessions lists the agent session ids of the live MCP sessions.
func (s *Server) AgentSessions() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ids []string
	for _, id := range s.sessions {
		ids = append(ids, id)
	}
	return ids
}

// SetTokensClock has t read the time from now (for tests of how often the
// token file is looked at).
func SetTokensClock(t *Tokens, now func() time.Time) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.now = now
}
