package runtime

import (
	"encoding/json"
	"fmt"
	"net/netip"
	"strings"
	"time"
	_ "time/tzdata" // to_timezone needs the zone database on any host

	"github.com/codemode-dev/codemode/runtime/monty"
)

// The codemode helpers: the parts of the standard library Monty lacks
// (ipaddress, zoneinfo, the clock), answered on the host.
//
//	codemode.now()                              # "2026-12-01T10:00:00Z"
//	codemode.to_timezone("2024-06-01T12:00:00+00:00", "Europe/Paris")
//	codemode.ip("10.0.0.5")                      # {"version": 4, "is_private": True, ...}
//	codemode.ip_in_network("10.0.0.5", "10.0.0.0/8")

const helpersName = "codemode"

// hasHelpers says programs get the codemode object: not when a service is
// named codemode (the service wins).
func (r *Runtime) hasHelpers() bool {
	for _, s := range r.services {
		if string(s.Name) == helpersName {
			return false
		}
	}
	return true
}

func helpersInput() monty.NamedValue {
	var fns []monty.Attr
	for _, f := range []string{"now", "to_timezone", "ip", "ip_in_network"} {
		fns = append(fns, monty.Attr{Name: f, Value: monty.Function{Name: helpersName + "." + f}})
	}
	return monty.NamedValue{Name: helpersName, Value: monty.NewInstance("_codemode", fns...)}
}

// helpersStub declares codemode for the type checker.
const helpersStub = `


class _codemode:
    def now(self) -> str: ...
    def to_timezone(self, when: str, zone: str, /) -> str: ...
    def ip(self, address: str, /) -> dict[str, Any]: ...
    def ip_in_network(self, address: str, network: str, /) -> bool: ...


codemode: _codemode
`

func withHelpers(stubs string) string {
	stubs = strings.Replace(stubs, `__all__ = [`, `__all__ = ["codemode", `, 1)
	return stubs + helpersStub
}

// helpersCall answers codemode.<f>(...).
func helpersCall(c *monty.Call, f string) monty.Reply {
	strs := func(n int, usage string) ([]string, *monty.Reply) {
		if len(c.Args) != n || len(c.Kwargs) != 0 {
			rep := monty.Raise("TypeError", "codemode."+f+"() takes "+usage)
			return nil, &rep
		}
		var out []string
		for _, a := range c.Args {
			s, ok := a.(string)
			if !ok {
				rep := monty.Raise("TypeError", "codemode."+f+"() takes "+usage)
				return nil, &rep
			}
			out = append(out, s)
		}
		return out, nil
	}
	switch f {
	case "now":
		if _, rep := strs(0, "no arguments: codemode.now()"); rep != nil {
			return *rep
		}
		return monty.Return(time.Now().UTC().Truncate(time.Second).Format(time.RFC3339))
	case "to_timezone":
		a, rep := strs(2, `an ISO time and a zone name: codemode.to_timezone("2024-06-01T12:00:00+00:00", "Europe/Paris")`)
		if rep != nil {
			return *rep
		}
		t, err := time.Parse(time.RFC3339Nano, a[0])
		if err != nil {
			return monty.Raise("ValueError", fmt.Sprintf("codemode.to_timezone(): %q is not an ISO time with an offset, e.g. \"2024-06-01T12:00:00+00:00\"", a[0]))
		}
		loc, err := time.LoadLocation(a[1])
		if err != nil || a[1] == "" || a[1] == "Local" {
			return monty.Raise("ValueError", fmt.Sprintf("codemode.to_timezone(): %q is not a time zone name, e.g. \"Europe/Paris\" or \"UTC\"", a[1]))
		}
		return monty.Return(t.In(loc).Format("2006-01-02T15:04:05.999999-07:00"))
	case "ip":
		a, rep := strs(1, `an address: codemode.ip("10.0.0.5")`)
		if rep != nil {
			return *rep
		}
		ip, err := netip.ParseAddr(a[0])
		if err != nil {
			return monty.Raise("ValueError", fmt.Sprintf("codemode.ip(): %q does not appear to be an IPv4 or IPv6 address", a[0]))
		}
		version := json.Number("4")
		if ip.Is6() && !ip.Is4In6() {
			version = json.Number("6")
		}
		return jobReply(map[string]any{
			"address": ip.String(), "version": version,
			"is_private": ip.IsPrivate(), "is_loopback": ip.IsLoopback(), "is_multicast": ip.IsMulticast(),
			"is_link_local": ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast(), "is_unspecified": ip.IsUnspecified(),
			"is_global": ip.IsGlobalUnicast() && !ip.IsPrivate(),
		})
	case "ip_in_network":
		a, rep := strs(2, `an address and a network: codemode.ip_in_network("10.0.0.5", "10.0.0.0/8")`)
		if rep != nil {
			return *rep
		}
		ip, err := netip.ParseAddr(a[0])
		if err != nil {
			return monty.Raise("ValueError", fmt.Sprintf("codemode.ip_in_network(): %q does not appear to be an IPv4 or IPv6 address", a[0]))
		}
		p, err := netip.ParsePrefix(a[1])
		if err != nil {
			return monty.Raise("ValueError", fmt.Sprintf("codemode.ip_in_network(): %q is not a network in CIDR form, e.g. \"10.0.0.0/8\"", a[1]))
		}
		return monty.Return(p.Masked().Contains(ip.Unmap()))
	}
	return monty.NotFound(c.Name)
}
