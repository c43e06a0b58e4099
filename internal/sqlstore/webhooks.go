package sqlstore

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// KeptDeliveries is how many of an endpoint's most recent deliveries its
// log keeps.
const KeptDeliveries = 1000

// KeptErasureRequests is how many of an organization's erasure requests
// that erased nothing (refused, duplicate, ignored) are kept; the
// erasures themselves are kept all.
const KeptErasureRequests = 1000

// ErrLeaseLost is SaveWebhookProgress's error when the round's lease or
// generation moved: its log rows are stored, nothing else.
var ErrLeaseLost = fmt.Errorf("the webhook's lease or position moved: %w", gatehouse.ErrConflict)

// CheckWebhookCount refuses a new endpoint for an organization that has
// n already, at the limit.
func CheckWebhookCount(n int) error {
	if n >= gatehouse.MaxWebhooks {
		return &gatehouse.ConflictError{Field: "url", Message: fmt.Sprintf("an organization has at most %d webhook endpoints", gatehouse.MaxWebhooks)}
	}
	return nil
}

// WebhookTarget is the audit target of an endpoint, named by its URL.
func WebhookTarget(id uuid.UUID, url string) gatehouse.AuditTarget {
	return gatehouse.AuditTarget{Type: gatehouse.TargetWebhook, ID: id, Name: url}
}

// JoinTypes writes an endpoint's types as its column holds them.
func JoinTypes(types []gatehouse.WebhookType) string {
	s := make([]string, len(types))
	for i, t := range types {
		s[i] = string(t)
	}
	return strings.Join(s, ",")
}

// FillWebhook sets what an endpoint's row holds in store form.
func FillWebhook(w *gatehouse.Webhook, types, filters string, attempts int, since *time.Time, lastError string, nextAt time.Time) {
	w.Types = []gatehouse.WebhookType{}
	for t := range strings.SplitSeq(types, ",") {
		if t != "" {
			w.Types = append(w.Types, gatehouse.WebhookType(t))
		}
	}
	w.Filters = gatehouse.FiltersOf(filters)
	if since != nil {
		w.Failing = &gatehouse.WebhookFailing{Since: gatehouse.Time(*since), Attempts: attempts,
			NextAttemptAt: gatehouse.Time(nextAt), LastError: lastError}
	}
}

// Set is one column an update sets.
type Set struct {
	Column string
	Value  any
}

// WebhookChanges returns the columns c changes in old, and e with those
// changes recorded (the entry's action becomes webhook.disabled when the
// change only disables it). A replay (c.EventsAfter) records the cursor;
// the caller sets it.
func WebhookChanges(old gatehouse.Webhook, c gatehouse.WebhookChange, e gatehouse.AuditEntry) ([]Set, gatehouse.AuditEntry) {
	var set []Set
	if c.URL != nil && *c.URL != old.URL {
		set = append(set, Set{"url", *c.URL})
		e = e.Change("url", old.URL, *c.URL)
	}
	if c.Description != nil && *c.Description != old.Description {
		set = append(set, Set{"description", *c.Description})
		e = e.Change("description", old.Description, *c.Description)
	}
	if c.Types != nil && !slices.Equal(c.Types, old.Types) {
		set = append(set, Set{"types", JoinTypes(c.Types)})
		e = e.Change("types", JoinTypes(old.Types), JoinTypes(c.Types))
	}
	if c.Filters != nil {
		oldFilters := encodeFilters(old.Filters)
		if *c.Filters != oldFilters {
			set = append(set, Set{"filters", *c.Filters})
			e = e.Change("filters", oldFilters, *c.Filters)
		}
	}
	if c.Enabled != nil && *c.Enabled != old.Enabled {
		reason := ""
		if !*c.Enabled {
			reason = "disabled"
		}
		set = append(set, Set{"enabled", *c.Enabled}, Set{"disabled_reason", reason})
		e = e.Change("enabled", fmt.Sprint(old.Enabled), fmt.Sprint(*c.Enabled))
		if !*c.Enabled && len(set) == 2 {
			e.Action = gatehouse.AuditWebhookDisabled
		}
	}
	if c.EventsAfter != nil {
		// Recorded even to the same position: a replay restarts a
		// failing head. The caller sets the position.
		e = e.Change("cursor", c.SealCursor(old.EventsAfter), c.SealCursor(*c.EventsAfter))
	}
	return set, e
}

// WebhookMoves reports whether c changes what a round under way sends, or
// where: its URL, types, filters, whether it is enabled, its position. The
// store then moves the generation, so that such a round saves nothing
// and stops at its next page (what it sent is sent again, by the rules
// of the endpoint as it is now).
func WebhookMoves(old gatehouse.Webhook, c gatehouse.WebhookChange) bool {
	return c.EventsAfter != nil || c.Filters != nil && *c.Filters != encodeFilters(old.Filters) ||
		c.URL != nil && *c.URL != old.URL || c.Enabled != nil && *c.Enabled != old.Enabled ||
		c.Types != nil && !slices.Equal(c.Types, old.Types)
}

// WebhookRestarts reports whether c clears the endpoint's failures and
// makes it due now: enabling it, or moving its position.
func WebhookRestarts(old gatehouse.Webhook, c gatehouse.WebhookChange) bool {
	return c.EventsAfter != nil || c.Enabled != nil && *c.Enabled && !old.Enabled
}

func encodeFilters(m map[string]string) string {
	v := url.Values{}
	for k, s := range m {
		v.Set(k, s)
	}
	return v.Encode()
}
