package ir

// DiagCode is a diagnostic's stable name, printed in brackets at the end of
// its line and matched by a pack's ignore: rules. Every code is one of the
// constants below, and each is listed in the package documentation
// (TestDiagCodesDocumented).
type DiagCode string

// Diagnostic codes, by the stage that reports them.
const (
	// parse, MCP tool lists
	DiagBadTool                DiagCode = "bad-tool"
	DiagDuplicateTool          DiagCode = "duplicate-tool"
	DiagEmptyInputSchema       DiagCode = "empty-input-schema"
	DiagBadInputSchema         DiagCode = "bad-input-schema"
	DiagUnsupportedInputSchema DiagCode = "unsupported-input-schema"
	DiagBadSchema              DiagCode = "bad-schema"

	// parse, OpenAPI documents
	DiagBadPaths           DiagCode = "bad-paths"
	DiagBadOperation       DiagCode = "bad-operation"
	DiagBadObject          DiagCode = "bad-object"
	DiagBadParameter       DiagCode = "bad-parameter"
	DiagBadRef             DiagCode = "bad-ref"
	DiagUnresolvedRef      DiagCode = "unresolved-ref"
	DiagBadServer          DiagCode = "bad-server"
	DiagOperationServers   DiagCode = "operation-servers"
	DiagUnsupportedMethod  DiagCode = "unsupported-method"
	DiagUnsupportedSec     DiagCode = "unsupported-security"
	DiagUnsupportedStyle   DiagCode = "unsupported-style"
	DiagWebhookSkipped     DiagCode = "webhook-skipped"
	DiagCallbackSkipped    DiagCode = "callback-skipped"
	DiagIgnoredHeader      DiagCode = "ignored-header"
	DiagParamContent       DiagCode = "param-content"
	DiagParamWithoutSchema DiagCode = "param-without-schema"
	DiagBodyContentType    DiagCode = "body-content-type"
	DiagBodyWithoutContent DiagCode = "body-without-content"
	DiagDuplicateBody      DiagCode = "duplicate-body"

	// ir, while deriving Python types
	DiagTypeTooDeep         DiagCode = "type-too-deep"
	DiagApproximatedKeyword DiagCode = "approximated-keyword"

	// enrich
	DiagEnrichTooDeep DiagCode = "enrich-too-deep"
	DiagEnrichFailed  DiagCode = "enrich-failed"

	// pack
	DiagUnusedIgnore DiagCode = "unused-ignore"

	// validate, when the runtime compiles a tool's schemas
	DiagUncompiledSchema DiagCode = "uncompiled-schema"
)

// DiagCodes is every diagnostic code, in the order the package
// documentation lists them.
var DiagCodes = []DiagCode{
	DiagBadTool, DiagDuplicateTool, DiagEmptyInputSchema, DiagBadInputSchema,
	DiagUnsupportedInputSchema, DiagBadSchema,
	DiagBadPaths, DiagBadOperation, DiagBadObject, DiagBadParameter, DiagBadRef,
	DiagUnresolvedRef, DiagBadServer, DiagOperationServers, DiagUnsupportedMethod,
	DiagUnsupportedSec, DiagUnsupportedStyle, DiagWebhookSkipped, DiagCallbackSkipped,
	DiagIgnoredHeader, DiagParamContent, DiagParamWithoutSchema, DiagBodyContentType,
	DiagBodyWithoutContent, DiagDuplicateBody,
	DiagTypeTooDeep, DiagApproximatedKeyword,
	DiagEnrichTooDeep, DiagEnrichFailed,
	DiagUnusedIgnore,
	DiagUncompiledSchema,
}
