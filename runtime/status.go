package runtime

// Status is how a call, or a run, ended: CallRecord.Status,
// CallResult.Status and Event.Status hold one of the constants below.
type Status string

// Call outcomes.
const (
	StatusOK      Status = "ok"      // the upstream answered
	StatusError   Status = "error"   // the upstream failed, or could not be reached
	StatusRefused Status = "refused" // not called: grant, read-gate, policy, pin, a wait, no such tool
	StatusInvalid Status = "invalid" // not called: the arguments do not bind or validate
	StatusWait    Status = "wait"    // the upstream asked the agent to end its turn and wait
	// The run was stopped during the call (audit only): by its time
	// limit (cut) or by its caller (cancelled).
	StatusCut       Status = "cut"
	StatusCancelled Status = "cancelled"
)

// Statuses only audit events carry.
const (
	StatusIntent  Status = "intent"  // an "intent" event: the request is about to leave
	StatusStarted Status = "started" // a "run" event: the program starts
	StatusBroken  Status = "broken"  // a "break" event: the audit log was broken
)

// Failed reports whether a call with this status did not succeed: anything
// but ok and wait.
func (s Status) Failed() bool { return s != StatusOK && s != StatusWait }

// Why a call was not made (Event.Reason): a bounded set, for metrics.
const (
	ReasonGrant      = "grant"      // no such tool among the granted ones
	ReasonReadGate   = "read-gate"  // its definition was not read
	ReasonValidation = "validation" // its arguments do not bind or validate
	ReasonPolicy     = "policy"     // a policy hook denied it
	ReasonPin        = "pin"        // its live definition does not match the pin
	ReasonLimit      = "limit"      // the program's call limit
	ReasonWait       = "wait"       // an earlier call of the program waits
)
