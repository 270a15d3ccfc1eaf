package ir

import (
	"fmt"
	"strings"
)

// ToolID names one tool of a pack: its service and its wire name (the name
// the upstream knows it by). It is the key every layer files a tool under
// (validation, the read-gate, pins, shapes, the runtime's views); a
// program's address for the tool, api.<service>.<py>, is a different name.
type ToolID struct {
	Service ServiceName
	Wire    WireName
}

// String is "<service>.<wire>".
func (id ToolID) String() string { return string(id.Service) + "." + string(id.Wire) }

// MarshalText writes String, so a ToolID keys a JSON object.
func (id ToolID) MarshalText() ([]byte, error) { return []byte(id.String()), nil }

// UnmarshalText reads "<service>.<wire>": the service is up to the first
// dot (a service name is a Python identifier), the wire name the rest.
func (id *ToolID) UnmarshalText(b []byte) error {
	svc, wire, ok := strings.Cut(string(b), ".")
	if !ok || svc == "" || wire == "" {
		return fmt.Errorf("tool id %q is not <service>.<tool>", b)
	}
	*id = ToolID{Service: ServiceName(svc), Wire: WireName(wire)}
	return nil
}
