package enrich

import "testing"

// TestConditionalLiteralDefaultNotRequired pins two wrong narrowings: a
// literal default stated for one case made the parameter required, as if
// its default were runtime state (firecrawl_search.domainTools,
// GetSetupIntents.attach_to_self).
func TestConditionalLiteralDefaultNotRequired(t *testing.T) {
	for _, desc := range []string{
		"Include domain-matched tools for result URLs. Defaults to true when Alexandria is combined with web, news or images; semantic-only search leaves domain matching off.",
		"If present, the SetupIntent's payment method will be attached to the in-context Stripe Account.\n\nIt can only be used for this Stripe Account’s own money movement flows like InboundTransfer and OutboundTransfers. It cannot be set to true when setting up a PaymentMethod for a Customer, and defaults to false when attaching a PaymentMethod to a Customer.",
	} {
		if got := changes(t, desc, `{"type":"boolean"}`, false); len(got) != 0 {
			t.Errorf("%q changed the schema: %v", desc, got)
		}
	}
	// A case that is itself runtime state still makes it one.
	got := changes(t, "Retention in days. Defaults to 30 when the account's plan allows it.", `{"type":"integer"}`, false)
	if got[KindRuntimeDefault] != `{"required":true}` || len(got) != 1 {
		t.Errorf("runtime case: got %v", got)
	}
}

// TestJointListLimitNoMaxItems pins a wrong narrowing: a limit on several
// lists together gave one of them maxItems 100
// (repos/add-app-access-restrictions.apps).
func TestJointListLimitNoMaxItems(t *testing.T) {
	for _, desc := range []string{
		"The GitHub Apps that have push access to this branch. Use the slugified version of the app name. **Note**: The list of users, apps, and teams in total is limited to 100 items.",
		"Labels to add. Labels and assignees combined may not exceed 10.",
	} {
		if got := changes(t, desc, `{"type":"array","items":{"type":"string"}}`, false); len(got) != 0 {
			t.Errorf("%q changed the schema: %v", desc, got)
		}
	}
	got := changes(t, "The apps to add, limited to 100 items in total.", `{"type":"array","items":{"type":"string"}}`, false)
	if got[KindLength] != `{"maxItems":100}` {
		t.Errorf("a total of this list alone: got %v", got)
	}
}

// TestEnumNarrowsStrayExistingValue pins a miss: the consistency check
// refused every enum that narrows an existing enum, so `start_side`'s
// "Can be `LEFT` or `RIGHT`" could not drop the stray "side". An existing
// value like the listed ones, or an empty string, still blocks it.
func TestEnumNarrowsStrayExistingValue(t *testing.T) {
	desc := "The `start_side` is the starting side of the diff that the comment applies to. Can be `LEFT` or `RIGHT`. See `side` in this table for additional context."
	got := changes(t, desc, `{"type":"string","enum":["LEFT","RIGHT","side"]}`, false)
	if got[KindEnum] != `{"enum":["LEFT","RIGHT"]}` || len(got) != 1 {
		t.Errorf("start_side: got %v", got)
	}
	for _, schema := range []string{
		`{"type":"string","enum":["LEFT","RIGHT","CENTER"]}`,
		`{"type":"string","enum":["LEFT","RIGHT",""]}`,
	} {
		if got := changes(t, desc, schema, false); len(got) != 0 {
			t.Errorf("%s: got %v", schema, got)
		}
	}
}
