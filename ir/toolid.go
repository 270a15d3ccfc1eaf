package ir

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
