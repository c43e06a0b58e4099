package gatehouse

import (
	"crypto/sha256"
	"net/url"
	"slices"
	"strconv"
	"time"

	"github.com/google/uuid"
)

// GrantSourceType says where a timed grant comes from: a purchase in the
// game (a developer product or a game pass) or a person's decision.
type GrantSourceType string

// The sources of a grant.
const (
	GrantDeveloperProduct GrantSourceType = "DEVELOPER_PRODUCT"
	GrantGamePass         GrantSourceType = "GAME_PASS"
	GrantManual           GrantSourceType = "MANUAL"
)

// GrantSourceTypes lists every source in documentation order.
var GrantSourceTypes = []GrantSourceType{GrantDeveloperProduct, GrantGamePass, GrantManual}

// Purchase reports whether the source is a purchase in the game: the only
// grants a game server's key (scope server alone) may create.
func (t GrantSourceType) Purchase() bool {
	return t == GrantDeveloperProduct || t == GrantGamePass
}

// Limits of a grant (see docs/api.md, "POST /grants").
const (
	// MaxGrantSpan bounds until − from.
	MaxGrantSpan = 366 * 24 * time.Hour
	// MaxGrantAccessPoints bounds the access points one grant lists; a
	// grant of a whole location names the location instead.
	MaxGrantAccessPoints = 100
	// MaxGrantNote and MaxGrantReceipt bound the note and the receipt id
	// (the platform's purchase ids are a few dozen characters).
	MaxGrantNote    = 200
	MaxGrantReceipt = 200
	// MaxSyncGrants bounds the grants of one sync answer: those that end
	// soonest come first.
	MaxSyncGrants = 2000
)

// GrantSource is where a grant comes from. ReceiptID, the platform's
// purchase id, makes creation idempotent: the same receipt in the same
// organization is the same grant.
type GrantSource struct {
	Type      GrantSourceType `json:"type"`
	ReceiptID *string         `json:"receiptId"`
}

// Grant is a timed pass: it lets one player through the access points it
// covers from From (inclusive) until the earlier of Until and RevokedAt
// (exclusive), whatever their schedule and allow rules (see [Decide]).
// It covers the access points it lists or, with LocationID, every access
// point of that location, also ones added later.
type Grant struct {
	ID             uuid.UUID   `json:"id"`
	OrgID          uuid.UUID   `json:"-"`
	PlatformUserID string      `json:"platformUserId"`
	AccessPointIDs []uuid.UUID `json:"accessPointIds"`
	LocationID     *uuid.UUID  `json:"locationId"`
	From           Time        `json:"from"`
	Until          Time        `json:"until"`
	Note           *string     `json:"note"`
	Source         GrantSource `json:"source"`
	CreatedAt      Time        `json:"createdAt"`
	RevokedAt      *Time       `json:"revokedAt"`
	// Active says whether the grant runs at the instant it was read
	// ([Grant.At]); stores leave it false.
	Active       bool       `json:"active"`
	CreatedBy    *Requester `json:"createdBy"`
	CreatedByKey *KeyRef    `json:"createdByKey"`
}

// Ends is when the grant stops: Until, or its revocation when earlier.
func (g Grant) Ends() time.Time {
	if g.RevokedAt != nil && time.Time(*g.RevokedAt).Before(time.Time(g.Until)) {
		return time.Time(*g.RevokedAt)
	}
	return time.Time(g.Until)
}

// Runs reports whether the grant runs at the instant: from From
// (inclusive) to [Grant.Ends] (exclusive).
func (g Grant) Runs(at time.Time) bool {
	return !time.Time(g.From).After(at) && g.Ends().After(at)
}

// At returns g with Active set for the instant now.
func (g Grant) At(now time.Time) Grant {
	g.Active = g.Runs(now)
	return g
}

// Covers reports whether the grant covers the access point apID of the
// location locationID.
func (g Grant) Covers(apID, locationID uuid.UUID) bool {
	if g.LocationID != nil {
		return *g.LocationID == locationID
	}
	return slices.Contains(g.AccessPointIDs, apID)
}

// ActiveGrant is the grant as the evaluator sees it.
func (g Grant) ActiveGrant() ActiveGrant {
	return ActiveGrant{PlatformUserID: g.PlatformUserID, From: g.From, Until: Time(g.Ends())}
}

// GrantRequest is the body of POST /grants.
type GrantRequest struct {
	PlatformUserID string       `json:"platformUserId"`
	AccessPointIDs []uuid.UUID  `json:"accessPointIds"`
	LocationID     *uuid.UUID   `json:"locationId"`
	From           *Time        `json:"from"`
	Until          *Time        `json:"until"`
	Note           *string      `json:"note"`
	Source         *GrantSource `json:"source"`
}

// Check fills the defaults of r at now (From now, source MANUAL) and
// returns it, or a *[ValidationError] naming every bad field:
//   - platformUserId must be a platform user id;
//   - exactly one of accessPointIds (1 to [MaxGrantAccessPoints], no
//     repeats) and locationId;
//   - until is required, after from and after now, at most
//     [MaxGrantSpan] after from;
//   - note at most [MaxGrantNote] printable characters;
//   - source.type one of [GrantSourceTypes]; source.receiptId at most
//     [MaxGrantReceipt] printable characters, required for
//     DEVELOPER_PRODUCT (the platform's ProcessReceipt always has one,
//     and retries until it is acknowledged).
func (r GrantRequest) Check(now time.Time) (GrantRequest, error) {
	var errs ValidationError
	if !IsPlatformUserID(r.PlatformUserID) {
		errs.Add("platformUserId", "must be a platform user id (digits)")
	}
	checkGrantTargets(&errs, r.AccessPointIDs, r.LocationID)
	if r.From == nil {
		r.From = ptr(Time(Truncate(now)))
	}
	from, err := inRange(Truncate(time.Time(*r.From)))
	if err != nil {
		errs.Add("from", "must be an RFC 3339 instant between years 0000 and 9999")
	}
	r.From = ptr(Time(from))
	switch {
	case r.Until == nil:
		errs.Add("until", "is required")
	default:
		until, err := inRange(Truncate(time.Time(*r.Until)))
		r.Until = ptr(Time(until))
		switch {
		case err != nil:
			errs.Add("until", "must be an RFC 3339 instant between years 0000 and 9999")
		case !until.After(now):
			errs.Add("until", "must be in the future")
		case !until.After(from):
			errs.Add("until", "must be after from")
		case until.Sub(from) > MaxGrantSpan:
			errs.Add("until", "must be at most 366 days after from")
		}
	}
	r.Note = blankToNil(r.Note)
	if r.Note != nil {
		CheckText(&errs, "note", *r.Note, MaxGrantNote)
	}
	r.Source = checkGrantSource(&errs, r.Source)
	return r, errs.Err()
}

func checkGrantTargets(errs *ValidationError, aps []uuid.UUID, loc *uuid.UUID) {
	switch {
	case len(aps) == 0 && loc == nil:
		errs.Add("accessPointIds", "give accessPointIds or locationId")
	case len(aps) > 0 && loc != nil:
		errs.Add("locationId", "must be empty when accessPointIds is given: give one of them")
	case len(aps) > MaxGrantAccessPoints:
		errs.Add("accessPointIds", "must list at most %d access points (a whole location: give locationId)", MaxGrantAccessPoints)
	case loc != nil && *loc == uuid.Nil:
		errs.Add("locationId", "must be a UUID")
	}
	for i, id := range aps {
		field := "accessPointIds[" + strconv.Itoa(i) + "]"
		if id == uuid.Nil {
			errs.Add(field, "must be a UUID")
		} else if slices.Index(aps, id) < i {
			errs.Add(field, "repeats an access point")
		}
	}
}

func checkGrantSource(errs *ValidationError, s *GrantSource) *GrantSource {
	if s == nil {
		return &GrantSource{Type: GrantManual}
	}
	out := *s
	if out.Type == "" {
		out.Type = GrantManual
	}
	if !slices.Contains(GrantSourceTypes, out.Type) {
		errs.Add("source.type", "must be one of DEVELOPER_PRODUCT, GAME_PASS, MANUAL")
	}
	out.ReceiptID = blankToNil(out.ReceiptID)
	switch {
	case out.ReceiptID != nil:
		CheckText(errs, "source.receiptId", *out.ReceiptID, MaxGrantReceipt)
	case out.Type == GrantDeveloperProduct:
		errs.Add("source.receiptId", "is required for DEVELOPER_PRODUCT: the platform's purchase id")
	}
	return &out
}

// NewGrant is a grant ready to store: the service has checked its access
// points or location and set its id, times and author.
type NewGrant struct {
	Grant
	// CreatedByUser and CreatedByKeyID attribute it (at most one is set;
	// neither for the operator's CLI).
	CreatedByUser  *uuid.UUID
	CreatedByKeyID *uuid.UUID
	// Wakes are the waiting syncs to wake when it is stored: the
	// servers hosting its player.
	Wakes []Wake
}

// GrantFilter selects grants of one organization, newest first.
type GrantFilter struct {
	PlatformUserID *string
	// AccessPointID matches the grants that list it, and those of its
	// location (LocationOf, which the service fills).
	AccessPointID *uuid.UUID
	LocationOf    *uuid.UUID
	// Active true keeps the grants running at Now; false the others.
	Active *bool
	Now    time.Time
	// ReceiptID keeps the grant of that source.receiptId (the service's
	// retry of a purchase; not a query parameter).
	ReceiptID *string
	// Within, when not nil, keeps the grants all of whose targets lie
	// in those locations: a location grant of one of them, or access
	// points that are all in them. The actor's reach (set by the
	// service).
	Within Reach
	Limit  int
	After  *GrantKey
}

// GrantKey is a grant's position in the list order: createdAt
// descending, then id descending.
type GrantKey struct {
	CreatedAt time.Time
	ID        uuid.UUID
}

// Key returns the grant's position in the list order.
func (g Grant) Key() GrantKey { return GrantKey{CreatedAt: time.Time(g.CreatedAt), ID: g.ID} }

// GrantPage is one page of grants; Next is set when more follow.
type GrantPage struct {
	Grants []Grant
	Next   *GrantKey
}

// CursorGrants is the cursor kind of grant lists.
const CursorGrants = 'g'

// GrantQueryParams lists the query parameters ReadGrantQuery reads.
var GrantQueryParams = []string{"platformUserId", "accessPointId", "active", paramLimit, paramCursor}

// ReadGrantQuery parses the query of a grant list (GET /grants, the
// dashboard, the CLI) and opens its cursor for orgID, as
// [ReadCommandQuery] does.
func ReadGrantQuery(v url.Values, cursors *Cursors, orgID uuid.UUID) (GrantFilter, error) {
	var (
		f    GrantFilter
		errs ValidationError
	)
	q := newListQuery(v, GrantQueryParams, &errs)
	if s, ok := q.one("platformUserId"); ok {
		if IsPlatformUserID(s) {
			f.PlatformUserID = &s
		} else {
			errs.Add("platformUserId", "must be a platform user id (digits)")
		}
	}
	if s, ok := q.one("accessPointId"); ok {
		f.AccessPointID = parseUUID(&errs, "accessPointId", s)
	}
	if s, ok := q.one("active"); ok {
		switch s {
		case "true", "false":
			f.Active = ptr(s == "true")
		default:
			errs.Add("active", "must be true or false")
		}
	}
	f.Limit = q.limit()
	f.After = openListCursor(q, cursors, CursorGrants, f.Digest(orgID), DecodeGrantKey)
	return f, errs.Err()
}

// Check returns the first problem of a filter built by hand: a Limit
// outside 1 to [MaxLimit].
func (f GrantFilter) Check() error {
	if f.Limit < 1 || f.Limit > MaxLimit {
		return Invalid("limit", "must be between 1 and %d", MaxLimit)
	}
	return nil
}

// Digest binds a cursor to the organization and the filters.
func (f GrantFilter) Digest(orgID uuid.UUID) [8]byte {
	h := sha256.New()
	h.Write([]byte("grants\x00"))
	h.Write(orgID[:])
	var player, active string
	if f.PlatformUserID != nil {
		player = *f.PlatformUserID
	}
	if f.Active != nil {
		active = strconv.FormatBool(*f.Active)
	}
	h.Write([]byte("\x00" + player + "\x00" + active + "\x00"))
	if f.AccessPointID != nil {
		h.Write(f.AccessPointID[:])
	}
	return [8]byte(h.Sum(nil)[:8])
}

// EncodeGrantKey writes a grant position as cursor bytes.
func EncodeGrantKey(k GrantKey) []byte {
	return EncodeEventKey(EventKey{OccurredAt: k.CreatedAt, ID: k.ID})
}

// DecodeGrantKey reads cursor bytes written by EncodeGrantKey.
func DecodeGrantKey(b []byte) (GrantKey, error) {
	k, err := DecodeEventKey(b)
	return GrantKey{CreatedAt: k.OccurredAt, ID: k.ID}, err
}
