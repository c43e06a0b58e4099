package gatehouse

import (
	"errors"
	"fmt"
	"net/netip"
	"net/url"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"
)

// WebhookType is the type of a webhook message (its body's "type").
type WebhookType string

// The message types. An endpoint subscribes to event.created and
// command.updated; webhook.test is only sent when asked for
// (service.Service.TestWebhook).
const (
	WebhookEventCreated   WebhookType = "event.created"
	WebhookCommandUpdated WebhookType = "command.updated"
	WebhookTest           WebhookType = "webhook.test"
	// WebhookLockdownUpdated: a lockdown started or was released (by a
	// person, a key, or its until); its data is the Lockdown.
	WebhookLockdownUpdated WebhookType = "lockdown.updated"
)

// WebhookTypes are the types an endpoint may subscribe to.
var WebhookTypes = []WebhookType{WebhookEventCreated, WebhookCommandUpdated, WebhookLockdownUpdated}

// Bounds of an endpoint's fields.
const (
	MaxWebhookURL         = 2048
	MaxWebhookDescription = 200
	// MaxWebhooks is how many endpoints one organization may have.
	MaxWebhooks = 20
)

// Webhook is an endpoint that Gatehouse delivers an organization's
// events (and command changes) to, in feed order. Its secret is never
// part of it: it is shown once, when the endpoint is made.
type Webhook struct {
	ID          uuid.UUID     `json:"id"`
	URL         string        `json:"url"`
	Description string        `json:"description"`
	Types       []WebhookType `json:"types"`
	// Filters are the feed's filters (GET /events/feed's parameters but
	// limit and after) that event.created deliveries match.
	Filters map[string]string `json:"filters"`
	Enabled bool              `json:"enabled"`
	// DisabledReason is "failing" when Gatehouse disabled the endpoint
	// after WebhookRetryFor of failures, "disabled" when a person did,
	// and empty while enabled.
	DisabledReason string `json:"disabledReason,omitempty"`
	CreatedAt      Time   `json:"createdAt"`
	// Cursor is the feed position up to which events were delivered: a
	// replay from it (POST /webhooks/{id}/replay) changes nothing.
	Cursor string `json:"cursor"`
	// Failing is set while the delivery at the head of the endpoint's
	// queue fails: since when, how many attempts, and when the next is.
	Failing *WebhookFailing `json:"failing"`
	// PreviousSecretExpiresAt is, after a rotation of its secret, when
	// the previous secret stops signing deliveries beside the new one.
	PreviousSecretExpiresAt *Time `json:"previousSecretExpiresAt"`

	// What the store keeps for the deliveries; not in JSON.
	OrgID         uuid.UUID    `json:"-"`
	EventsAfter   FeedPosition `json:"-"`
	CommandsAfter FeedPosition `json:"-"`
	// LockdownsAfter is the position in the lockdown feed delivered
	// through (lockdown.updated).
	LockdownsAfter FeedPosition `json:"-"`
	Generation     int64        `json:"-"`
}

// WebhookFailing describes an endpoint whose deliveries fail.
type WebhookFailing struct {
	Since         Time   `json:"since"`
	Attempts      int    `json:"attempts"`
	NextAttemptAt Time   `json:"nextAttemptAt"`
	LastError     string `json:"lastError"`
}

// Subscribes reports whether w receives messages of type t.
func (w Webhook) Subscribes(t WebhookType) bool { return slices.Contains(w.Types, t) }

// WebhookInput is what creates or changes an endpoint: on a change, a
// nil field is left as it is.
type WebhookInput struct {
	URL         *string            `json:"url"`
	Description *string            `json:"description"`
	Types       []WebhookType      `json:"types"`
	Filters     *map[string]string `json:"filters"`
	Enabled     *bool              `json:"enabled"`
}

var webhookInputFields = []string{"url", "description", "types", "filters", "enabled"}

// DecodeWebhookInput reads the body of POST /webhooks or PATCH
// /webhooks/{id}: every problem at once, keyed by field.
func DecodeWebhookInput(data []byte) (WebhookInput, error) {
	var in WebhookInput
	_, err := DecodeFields(data, &in, webhookInputFields)
	return in, err
}

// WebhookChange is a checked WebhookInput, as the store applies it.
type WebhookChange struct {
	URL         *string
	Description *string
	Types       []WebhookType
	Filters     *string // encoded query
	Enabled     *bool
	// EventsAfter, set by a replay, moves the endpoint's feed position;
	// the audit entry records the move as cursors sealed by SealCursor.
	EventsAfter *FeedPosition
	SealCursor  func(FeedPosition) string
}

// CheckWebhook validates in; creating requires the URL. allowPrivate
// admits http and private addresses (--webhooks-allow-private).
func CheckWebhook(in WebhookInput, creating, allowPrivate bool) (WebhookChange, error) {
	var (
		errs ValidationError
		c    = WebhookChange{URL: in.URL, Description: in.Description, Enabled: in.Enabled}
	)
	switch {
	case in.URL != nil:
		checkWebhookURL(&errs, *in.URL, allowPrivate)
	case creating:
		errs.Add("url", "is required: the https URL deliveries are sent to")
	}
	if in.Description != nil {
		CheckText(&errs, "description", *in.Description, MaxWebhookDescription)
	}
	if in.Types != nil || creating {
		c.Types = []WebhookType{}
		for i, t := range in.Types {
			if !slices.Contains(WebhookTypes, t) {
				errs.Add(fmt.Sprintf("types[%d]", i), "must be event.created, command.updated or lockdown.updated")
			} else if !slices.Contains(c.Types, t) {
				c.Types = append(c.Types, t)
			}
		}
		if len(in.Types) == 0 && creating {
			c.Types = []WebhookType{WebhookEventCreated}
		} else if len(in.Types) == 0 {
			errs.Add("types", "must name at least one of event.created, command.updated, lockdown.updated")
		}
	}
	if in.Filters != nil {
		v := url.Values{}
		for k, val := range *in.Filters {
			if k == paramLimit || k == ParamAfter || !slices.Contains(FeedQueryParams, k) {
				errs.Add("filters."+k, "is not a filter (known: accessPointId, locationId, type, allowed, platformUserId, reason, scope)")
				continue
			}
			v.Set(k, val)
		}
		var ve *ValidationError
		if _, err := ParseFeedQuery(v); errors.As(err, &ve) {
			errs.Merge("filters", ve)
		}
		enc := v.Encode()
		c.Filters = &enc
	} else if creating {
		enc := ""
		c.Filters = &enc
	}
	return c, errs.Err()
}

// checkWebhookURL admits an absolute https URL without credentials or
// fragment, whose host is a name or a public address; http and private
// addresses only with allowPrivate. A name is checked again at every
// connection, on the address it resolves to (internal/webhook).
func checkWebhookURL(errs *ValidationError, raw string, allowPrivate bool) {
	if len(raw) > MaxWebhookURL {
		errs.Add("url", "must be at most %d bytes", MaxWebhookURL)
		return
	}
	u, err := url.Parse(raw)
	switch {
	case err != nil || !u.IsAbs() || u.Host == "" || u.Opaque != "":
		errs.Add("url", "must be an absolute URL, e.g. https://example.com/gatehouse")
	case u.Scheme != "https" && !(u.Scheme == "http" && allowPrivate):
		errs.Add("url", "must use https (http only when the server runs with --webhooks-allow-private)")
	case u.User != nil:
		errs.Add("url", "must not hold credentials: verify deliveries by their signature")
	case u.Fragment != "" || strings.Contains(raw, "#"):
		errs.Add("url", "must not have a fragment")
	case !allowPrivate && privateHost(u.Hostname()):
		errs.Add("url", "is a loopback, private or link-local address, refused unless the server runs with --webhooks-allow-private")
	}
}

// privateHost reports a host that can only be private: an address that
// is not public, or localhost.
func privateHost(host string) bool {
	if a, err := netip.ParseAddr(host); err == nil {
		return !PublicAddress(a)
	}
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}

// ParseWebhookFilter returns the event filter of an endpoint's filters.
func ParseWebhookFilter(encoded string) (EventFilter, error) {
	v, err := url.ParseQuery(encoded)
	if err != nil {
		return EventFilter{}, err
	}
	q, err := ParseFeedQuery(v)
	return q.Filter, err
}

// FiltersOf decodes an endpoint's stored filters for its JSON.
func FiltersOf(encoded string) map[string]string {
	v, _ := url.ParseQuery(encoded)
	m := make(map[string]string, len(v))
	for k := range v {
		m[k] = v.Get(k)
	}
	return m
}

// Delivery outcomes.
const (
	DeliveryPending   = "pending"
	DeliverySucceeded = "succeeded"
	DeliveryFailed    = "failed"
)

// WebhookDelivery is one attempt to send a message to an endpoint, as the
// delivery log keeps it: the 1,000 most recent per endpoint.
type WebhookDelivery struct {
	ID uuid.UUID `json:"id"`
	// MessageID is the message's webhook-id: the same for every attempt
	// of one message, so a receiver can drop repeats.
	MessageID string      `json:"messageId"`
	Type      WebhookType `json:"type"`
	// ObjectID is the event's or command's id (the delivery's own id for
	// a test message).
	ObjectID uuid.UUID `json:"objectId"`
	// Status is pending (a redelivery or test not sent yet), succeeded
	// or failed.
	Status string `json:"status"`
	// Manual is set for redeliveries and tests, which are sent once and
	// out of order.
	Manual       bool   `json:"manual"`
	Attempt      int    `json:"attempt"`
	At           Time   `json:"at"`
	ResponseCode *int   `json:"responseCode"`
	LatencyMS    *int64 `json:"latencyMs"`
	Error        string `json:"error,omitempty"`
	Response     string `json:"response,omitempty"`
}

// WebhookClaim is a due endpoint leased to one instance, with what
// delivering needs: its sealed secret and its pending manual deliveries.
type WebhookClaim struct {
	Webhook Webhook
	Sealed  []byte
	Filters string // encoded
	Pending []WebhookDelivery
}

// WebhookProgress is what one round of deliveries to a claimed endpoint
// leaves, saved in one transaction by the holder of its lease.
type WebhookProgress struct {
	OrgID, ID  uuid.UUID
	Holder     string
	Generation int64 // the claim's: a replay or a change since leaves the positions alone
	Now        time.Time
	Deliveries []WebhookDelivery // new log rows, and the manual ones sent (same id)
	// EventsAfter and CommandsAfter are the positions delivered through.
	EventsAfter, CommandsAfter FeedPosition
	// LockdownsAfter is the position in the lockdown feed delivered
	// through.
	LockdownsAfter FeedPosition
	// Attempts and FailingSince are the endpoint's failure state
	// (0 and nil: healthy), LastError the last failure's description.
	Attempts     int
	FailingSince *time.Time
	LastError    string
	// NextAt is when the endpoint is next due; Release ends the lease.
	NextAt  time.Time
	Release bool
	// Disable, when set, disables the endpoint (failing for
	// WebhookRetryFor) and is the audit entry of it.
	Disable *AuditEntry
}

// CommandChange is a command whose status changed, at its position in
// the organization's command feed.
type CommandChange struct {
	ID       uuid.UUID
	Status   CommandStatus
	Position FeedPosition
}

// ParseLimitQuery reads the query of a list that takes only a limit, of
// 1 to most (GET /webhooks/{id}/deliveries: MaxDeliveriesListed; GET
// /privacy/erasure-requests: MaxLimit).
func ParseLimitQuery(v url.Values, most int) (limit int, err error) {
	var errs ValidationError
	limit = parseLimitUpTo(&errs, newListQuery(v, []string{paramLimit}, &errs).v, most)
	return limit, errs.Err()
}

// MaxDeliveriesListed bounds a delivery log read: the log keeps 1,000.
const MaxDeliveriesListed = 1000

// Bounds of a secret rotation's overlap: how long the previous secret
// still signs beside the new one.
const (
	DefaultWebhookSecretOverlap = 24 * time.Hour
	MaxWebhookSecretOverlap     = 7 * 24 * time.Hour
)
