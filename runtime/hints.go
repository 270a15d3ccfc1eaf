package runtime

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/codemode-dev/codemode/internal/suggest"
	"github.com/codemode-dev/codemode/ir"
	"github.com/codemode-dev/codemode/runtime/monty"
)

// The correction belongs in the error: when a program reaches for something
// that does not exist here, the error names the way that does.

var noNetwork = map[string]bool{
	"requests": true, "urllib": true, "urllib3": true, "http": true, "httpx": true,
	"aiohttp": true, "socket": true, "subprocess": true, "os": true, "sys": true,
	"shutil": true, "pathlib": true, "io": true, "tempfile": true, "ssl": true,
}

var (
	moduleMissing = regexp.MustCompile(`No module named '([^'.]+)`)
	attrMissing   = regexp.MustCompile(`'(_svc_[A-Za-z0-9_]+|_api)' object has no attribute '([^']+)'`)
	nameMissing   = regexp.MustCompile(`name '([^']+)' is not defined`)
	typingAttr    = regexp.MustCompile("(?:Object of type|Type) `(_svc_[A-Za-z0-9_]+|_api)` has no attribute `([^`]+)`")
	typingImport  = regexp.MustCompile("Cannot resolve imported module `([^`.]+)")
	typingName    = regexp.MustCompile("Name `([^`]+)` used when not defined")
	typingKey     = regexp.MustCompile("Unknown key \"([^\"]+)\" for TypedDict `_([A-Za-z0-9_]+)`")
)

// jobsHint is the correction for a program that tries to wait: sleeping,
// polling in a loop, a thread.
const jobsHint = `a program cannot wait: start the long call with jobs.submit("name", api.<service>.<tool>, arg=value) and end the turn with jobs.wait("name", wake_after=seconds); a later turn reads jobs.get("name")`

// primitiveHints correct the modules a program reaches for to wait or run
// things at once, and the standard modules Monty lacks, naming what does
// the job here. withJobs marks the hints that name jobs (not offered when
// a service is named jobs).
var primitiveHints = map[string]struct {
	hint     string
	withJobs bool
}{
	"time":            {"Hint: there is no time module here (no sleep, no clock); " + jobsHint + ".", true},
	"threading":       {"Hint: there are no threads here. For calls at the same time, import asyncio and await asyncio.gather(api.aio.<service>.<tool>(...), ...); for a call in the background, jobs.submit it: " + jobsHint + ".", true},
	"multiprocessing": {"Hint: there are no processes here. For calls at the same time, import asyncio and await asyncio.gather(api.aio.<service>.<tool>(...), ...); for a call in the background, jobs.submit it: " + jobsHint + ".", true},
	"concurrent":      {"Hint: there are no threads here. For calls at the same time, import asyncio and await asyncio.gather(api.aio.<service>.<tool>(...), ...); for a call in the background, jobs.submit it: " + jobsHint + ".", true},
	"subprocess":      {"Hint: this sandbox runs no processes; a tool does the work: call it as api.<service>.<tool>(...) (find it with find_tool(\"<what you need>\")), and if it runs long, " + jobsHint + ".", true},
	"ipaddress":       {"Hint: there is no ipaddress module here; codemode.ip(\"10.0.0.5\") returns an address's version and flags (is_private, is_loopback, ...), and codemode.ip_in_network(\"10.0.0.5\", \"10.0.0.0/8\") tests membership.", false},
	"zoneinfo":        {"Hint: there is no zoneinfo module here; codemode.to_timezone(\"2024-06-01T12:00:00+00:00\", \"Europe/Paris\") returns the ISO time in that zone (read it with datetime.datetime.fromisoformat); fixed offsets work with datetime.timezone(datetime.timedelta(hours=2)).", false},
}

var (
	typingMember = regexp.MustCompile("Module `([^`]+)` has no member `([^`]+)`")
	moduleAttr   = regexp.MustCompile(`module '([^']+)' has no attribute '([^']+)'`)
	typeAttr     = regexp.MustCompile(`type object '(datetime\.(?:datetime|date))' has no attribute '([^']+)'`)
)

// memberHint corrects a missing member of a module that exists
// (asyncio.sleep), or "".
func (r *Runtime) memberHint(module, member string) string {
	if module == "asyncio" && member == "sleep" && r.hasJobs() {
		return "Hint: asyncio.sleep is not available; " + jobsHint + "."
	}
	return ""
}

// stdlibHint corrects the parts of datetime Monty lacks, or "".
func stdlibHint(typ, attr string) string {
	switch attr {
	case "fromtimestamp", "utcfromtimestamp":
		return "Hint: " + typ + "." + attr + " is not available; datetime.datetime(1970, 1, 1, tzinfo=datetime.timezone.utc) + datetime.timedelta(seconds=ts) is the UTC time of a Unix timestamp ts."
	}
	return ""
}

// formatException renders an uncaught exception with the program's own
// frames and a correction where one applies.
func formatException(e *monty.Exception, r *Runtime) string {
	own := *e
	own.Traceback = nil
	for _, f := range e.Traceback {
		// Monty names each fed snippet "<python-input-N>": the program's
		// own lines. Frames of anything else (none today) are dropped.
		if strings.HasPrefix(f.Filename, "<python-input-") || f.Filename == ScriptName {
			f.Filename = ScriptName
			own.Traceback = append(own.Traceback, f)
		}
	}
	text := own.Format()
	if hint := r.hintFor(e.Type, e.Message); hint != "" {
		text = strings.TrimRight(text, "\n") + "\n" + hint + "\n"
	}
	return text
}

// hintFor returns the correction for an error message, or "".
func (r *Runtime) hintFor(excType, msg string) string {
	if m := moduleMissing.FindStringSubmatch(msg); m != nil && (excType == "ModuleNotFoundError" || excType == "ImportError") {
		if m[1] == "api" {
			return "Hint: api is already bound in every program; call api.<service>.<tool>(...)."
		}
		if p, ok := primitiveHints[m[1]]; ok && (!p.withJobs || r.hasJobs()) {
			return p.hint
		}
		if noNetwork[m[1]] {
			return "Hint: this sandbox has no network, files or processes. " + toolHint
		}
		return "Hint: only the standard modules Monty ships (json, re, math, datetime, ...) can be imported. " + toolHint
	}
	if m := moduleAttr.FindStringSubmatch(msg); m != nil {
		return r.memberHint(m[1], m[2])
	}
	if m := typeAttr.FindStringSubmatch(msg); m != nil {
		return stdlibHint(m[1], m[2])
	}
	if strings.Contains(msg, "'datetime.now' is not supported") || strings.Contains(msg, "'date.today' is not supported") {
		return "Hint: the sandbox has no clock; codemode.now() returns the current UTC time as an ISO string (read it with datetime.datetime.fromisoformat)."
	}
	if m := attrMissing.FindStringSubmatch(msg); m != nil {
		return r.attrHint(m[1], m[2])
	}
	if m := nameMissing.FindStringSubmatch(msg); m != nil {
		switch m[1] {
		case "open", "input", "exec", "eval", "compile", "__import__":
			return fmt.Sprintf("Hint: %s() is not available in this sandbox. %s", m[1], toolHint)
		}
		if best := r.closestTool(m[1]); best != "" {
			return fmt.Sprintf("Hint: did you mean %s? %s", best, toolHint)
		}
	}
	return ""
}

// attrHint corrects api.<misspelt> and api.<service>.<misspelt>.
func (r *Runtime) attrHint(typ, attr string) string {
	if typ == "_api" {
		var names []string
		for _, s := range r.services {
			names = append(names, string(s.Name))
		}
		msg := "Hint: there is no service api." + attr
		if best := closest(attr, names); best != "" {
			msg += "; did you mean api." + best + "?"
		} else {
			msg += "."
		}
		return msg + " The services are: api." + strings.Join(names, ", api.") + ". " + findHint
	}
	svc := strings.TrimPrefix(typ, "_svc_")
	s, ok := r.cfg.Manifest.Service(ir.ServiceName(svc))
	if !ok {
		return ""
	}
	var names []string
	for _, t := range s.Tools {
		names = append(names, string(t.Py))
	}
	msg := fmt.Sprintf("Hint: api.%s has no tool %s", svc, attr)
	if best := closest(attr, names); best != "" {
		msg += fmt.Sprintf("; did you mean api.%s.%s?", svc, best)
	} else {
		msg += "."
	}
	return msg + " " + findHint
}

// hintTyping adds corrections to type-check diagnostics of the program
// code.
func hintTyping(report, code string, r *Runtime) string {
	report = strings.TrimRight(report, "\n")
	var hints []string
	seen := map[string]bool{}
	add := func(h string) {
		if h != "" && !seen[h] {
			seen[h] = true
			hints = append(hints, h)
		}
	}
	for _, m := range typingAttr.FindAllStringSubmatch(report, -1) {
		add(r.attrHint(m[1], m[2]))
	}
	for _, m := range typingImport.FindAllStringSubmatch(report, -1) {
		add(r.hintFor("ModuleNotFoundError", "No module named '"+m[1]+"'"))
	}
	for _, m := range typingMember.FindAllStringSubmatch(report, -1) {
		add(r.memberHint(m[1], m[2]))
	}
	for _, m := range typingName.FindAllStringSubmatch(report, -1) {
		add(r.hintFor("NameError", "name '"+m[1]+"' is not defined"))
	}
	for _, m := range typingKey.FindAllStringSubmatch(report, -1) {
		add(r.observedKeyHint(m[1], m[2]))
	}
	for _, h := range r.argHints(report, code) {
		add(h)
	}
	if len(hints) > 0 {
		report += "\n" + strings.Join(hints, "\n")
	}
	return report + "\n"
}

// closestTool finds the tool whose name is nearest to name, as a call form.
func (r *Runtime) closestTool(name string) string {
	var names []string
	calls := map[string]string{}
	for _, s := range r.services {
		for _, t := range s.Tools {
			for _, n := range []string{string(t.Py), string(t.Wire), string(s.Name) + "." + string(t.Py)} {
				names = append(names, n)
				calls[n] = t.Call
			}
		}
	}
	if best := closest(strings.TrimPrefix(name, "api."), names); best != "" {
		return calls[best]
	}
	return ""
}

// maxFuzzy is the longest name fuzzy matching considers.
const maxFuzzy = suggest.MaxLen

// closest returns the candidate s most likely meant, or "" (suggest.Closest:
// the one rule, shared with validation).
func closest(s string, candidates []string) string {
	if i := suggest.Closest(s, candidates); i >= 0 {
		return candidates[i]
	}
	return ""
}

// observedKeyHint explains a refused key of a result type that gen typed
// from observed results (the stub names its TypedDicts _<service>__<Name>):
// such a type lists only the keys real results had.
func (r *Runtime) observedKeyHint(key, typed string) string {
	for _, s := range r.services {
		if !strings.HasPrefix(typed, string(s.Name)+"__") {
			continue
		}
		for _, t := range s.Tools {
			if t.Observed != nil {
				return fmt.Sprintf("Hint: a result type marked # observed lists only the keys real results had; if %q can be there, read it with .get(%q).", key, key)
			}
		}
	}
	return ""
}
