package service

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/gatehouse/gatehouse"
	"github.com/gatehouse/gatehouse/internal/clock"
	"github.com/google/uuid"
)

// ErasePlatformUser erases one player from the organization: every event
// and command of that platform user id, and its search term. The feed and
// webhooks never show them again.
//
// It erases in transactions of [gatehouse.EraseBatch] events, so that no
// write waits long. The audit log records the erasure by a keyed hash of
// the id, never the id. Erasing a player erased already finds nothing,
// and is recorded again.
//
// A [*gatehouse.ValidationError] keyed "platformUserId";
// [gatehouse.ErrForbidden] unless the acting user is an admin.
func (s *Service) ErasePlatformUser(ctx context.Context, orgID uuid.UUID, platformUserID string) (gatehouse.Erasure, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManagePrivacy); err != nil {
		return gatehouse.Erasure{}, err
	}
	var errs gatehouse.ValidationError
	if gatehouse.CheckText(&errs, "platformUserId", platformUserID, gatehouse.MaxExternalID) && platformUserID == "" {
		errs.Add("platformUserId", "is required")
	}
	if err := errs.Err(); err != nil {
		return gatehouse.Erasure{}, err
	}
	er, _, err := s.erase(ctx, orgID, platformUserID, s.entry(ctx, orgID, gatehouse.AuditPlatformUserErased, gatehouse.TargetPlatformUser))
	return er, err
}

// erase runs an erasure recorded by e, and returns the keyed hash the
// entry names the player by.
func (s *Service) erase(ctx context.Context, orgID uuid.UUID, platformUserID string, e gatehouse.AuditEntry) (gatehouse.Erasure, string, error) {
	secret, err := s.store.Secret(ctx)
	if err != nil {
		return gatehouse.Erasure{}, "", err
	}
	var er gatehouse.Erasure
	for {
		n, err := s.store.DeletePlayerEvents(ctx, orgID, platformUserID, gatehouse.EraseBatch)
		if err != nil {
			return er, "", err
		}
		er.Events += n
		if n < gatehouse.EraseBatch {
			break
		}
	}
	e.Target.Name = gatehouse.PlatformUserHash(secret, orgID, platformUserID)
	e = e.Change("events", "", strconv.Itoa(er.Events))
	er.Commands, err = s.store.FinishErasure(ctx, e, orgID, platformUserID)
	return er, e.Target.Name, err
}

// SetRetention sets how many days of the organization's events are kept
// ([gatehouse.MinRetentionDays] to [gatehouse.MaxRetentionDays]); the
// background loop deletes older ones. A [*gatehouse.ValidationError] keyed
// "retentionDays"; [gatehouse.ErrForbidden] unless the acting user is an
// admin.
func (s *Service) SetRetention(ctx context.Context, orgID uuid.UUID, days int) (gatehouse.Organization, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManagePrivacy); err != nil {
		return gatehouse.Organization{}, err
	}
	if days < gatehouse.MinRetentionDays || days > gatehouse.MaxRetentionDays {
		return gatehouse.Organization{}, gatehouse.Invalid("retentionDays", "must be from %d (a whole 366-day window stays answerable) to %d", gatehouse.MinRetentionDays, gatehouse.MaxRetentionDays)
	}
	return s.store.SetRetention(ctx, s.entry(ctx, orgID, gatehouse.AuditRetentionChanged, gatehouse.TargetOrganization), orgID, days)
}

// Organization returns the organization, with its settings.
func (s *Service) Organization(ctx context.Context, orgID uuid.UUID) (gatehouse.Organization, error) {
	if _, err := gatehouse.AuthorizeIn(ctx, orgID, gatehouse.PermView); err != nil {
		return gatehouse.Organization{}, err
	}
	return s.store.FindOrganization(ctx, orgID)
}

// ListErasureRequests returns the latest limit requests the
// organization's right-to-erasure webhook received, newest first.
func (s *Service) ListErasureRequests(ctx context.Context, orgID uuid.UUID, limit int) ([]gatehouse.ErasureRequest, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManagePrivacy); err != nil {
		return nil, err
	}
	return s.store.ListErasureRequests(ctx, orgID, limit)
}

// SetUpErasureWebhook makes (or replaces) the organization's
// right-to-erasure webhook: a new opaque token for its URL and a new
// secret to paste into the platform's webhook settings. The old token
// stops working at once. [gatehouse.ErrForbidden] unless the acting user
// is an admin.
func (s *Service) SetUpErasureWebhook(ctx context.Context, orgID uuid.UUID) (gatehouse.ErasureIntegration, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManagePrivacy); err != nil {
		return gatehouse.ErasureIntegration{}, err
	}
	sealer, err := s.sealing(ctx)
	if err != nil {
		return gatehouse.ErasureIntegration{}, err
	}
	in := gatehouse.ErasureIntegration{Token: randomText(24), Secret: randomText(32), CreatedAt: gatehouse.Time(gatehouse.Truncate(s.Now()))}
	err = s.store.SetErasureIntegration(ctx, s.entry(ctx, orgID, gatehouse.AuditErasureWebhookSet, gatehouse.TargetOrganization), orgID,
		sha256.Sum256([]byte(in.Token)), sealer.Seal(orgID, gatehouse.ErasureTokenSealLabel, []byte(in.Token)),
		sealer.Seal(orgID, gatehouse.ErasureSecretSealLabel, []byte(in.Secret)), time.Time(in.CreatedAt))
	return in, err
}

// ErasureWebhook returns the organization's right-to-erasure webhook, to
// show an admin how to set it up. [gatehouse.ErrNotFound] when there is
// none.
func (s *Service) ErasureWebhook(ctx context.Context, orgID uuid.UUID) (gatehouse.ErasureIntegration, error) {
	if err := gatehouse.Authorize(ctx, orgID, gatehouse.PermManagePrivacy); err != nil {
		return gatehouse.ErasureIntegration{}, err
	}
	sealedToken, sealedSecret, at, err := s.store.FindErasureIntegration(ctx, orgID)
	if err != nil {
		return gatehouse.ErasureIntegration{}, err
	}
	sealer, err := s.sealing(ctx)
	if err != nil {
		return gatehouse.ErasureIntegration{}, err
	}
	token, err1 := sealer.Open(orgID, gatehouse.ErasureTokenSealLabel, sealedToken)
	secret, err2 := sealer.Open(orgID, gatehouse.ErasureSecretSealLabel, sealedSecret)
	if err := errors.Join(err1, err2); err != nil {
		return gatehouse.ErasureIntegration{}, err
	}
	return gatehouse.ErasureIntegration{Token: string(token), Secret: string(secret), CreatedAt: gatehouse.Time(at)}, nil
}

// ErasureClaimLease is how long the delivery that erases a notification
// holds it: an instance that dies erasing delays a redelivery's erasure
// so long. erasureClaimPoll is how often a delivery that found it
// claimed looks again.
const (
	ErasureClaimLease = 10 * time.Minute
	erasureClaimPoll  = 50 * time.Millisecond
)

// erasureNotification is the body the platform sends.
type erasureNotification struct {
	NotificationID string `json:"NotificationId"`
	EventType      string `json:"EventType"`
	EventPayload   struct {
		UserID json.Number `json:"UserId"`
	} `json:"EventPayload"`
}

// ReceiveErasure handles one request of the platform's right-to-erasure
// webhook at the organization's token, and returns its record only once
// the erasure is durable. It:
//   - verifies the roblox-signature header: t=timestamp,v1=base64
//     HMAC-SHA256 of "timestamp.body" keyed by the secret, and a timestamp
//     at most [gatehouse.ErasureMaxAge] old;
//   - claims the notification, and erases the player of a
//     RightToErasureRequest.
//
// Every request to a known token is recorded. These change nothing:
//   - a notification erased already, or erased meanwhile by a delivery of
//     it that claimed it first (this one waits for it): a duplicate;
//   - another event type (the platform's test): ignored.
//
// Errors:
//   - [gatehouse.ErrNotFound] for an unknown token;
//   - [gatehouse.ErrErasureUnverified];
//   - a [*gatehouse.ValidationError] for a body that is not a
//     notification.
func (s *Service) ReceiveErasure(ctx context.Context, token, signature string, body []byte) (gatehouse.ErasureRequest, error) {
	orgID, sealedSecret, err := s.store.ErasureIntegrationByToken(ctx, sha256.Sum256([]byte(token)))
	if err != nil {
		return gatehouse.ErasureRequest{}, err
	}
	now := s.Now()
	r := gatehouse.ErasureRequest{ID: gatehouse.NewID(), ReceivedAt: gatehouse.Time(gatehouse.Truncate(now))}
	record := func(outcome gatehouse.ErasureOutcome, detail string, err error) (gatehouse.ErasureRequest, error) {
		r.Outcome, r.Detail = outcome, detail
		if rerr := s.store.RecordErasureRequest(ctx, orgID, r); rerr != nil {
			return r, rerr
		}
		return r, err
	}
	sealer, err := s.sealing(ctx)
	if err != nil {
		return r, err
	}
	secret, err := sealer.Open(orgID, gatehouse.ErasureSecretSealLabel, sealedSecret)
	if err != nil {
		return r, err
	}
	if problem := gatehouse.VerifyPlatformSignature(secret, signature, body, now); problem != "" {
		return record(gatehouse.ErasureRefused, problem, fmt.Errorf("%w: %s", gatehouse.ErrErasureUnverified, problem))
	}
	var n erasureNotification
	dec := json.NewDecoder(strings.NewReader(string(body)))
	dec.UseNumber()
	if err := dec.Decode(&n); err != nil || n.NotificationID == "" || len(n.NotificationID) > 200 {
		return record(gatehouse.ErasureRefused, "the body is not a notification with a NotificationId", gatehouse.Invalid("body", "is not a platform notification"))
	}
	r.NotificationID = n.NotificationID
	if n.EventType != "RightToErasureRequest" {
		return record(gatehouse.ErasureIgnored, "not a right-to-erasure request: "+logText([]byte(n.EventType), 64), nil)
	}
	user := n.EventPayload.UserID.String()
	if _, err := strconv.ParseUint(user, 10, 64); err != nil {
		return record(gatehouse.ErasureRefused, "EventPayload.UserId is not a user id", gatehouse.Invalid("body", "EventPayload.UserId is not a user id"))
	}
	// One delivery of a notification erases: it claims the notification
	// first. The platform sends one again when an answer is slow, so
	// several may arrive at once; those that find it claimed wait for
	// the claim's end, so that "duplicate" is only said of an erasure
	// that is done, and one whose erasure failed (its claim released)
	// or whose instance died (its claim expired) is taken over.
	for {
		claimed, done, err := s.store.ClaimErasure(ctx, orgID, n.NotificationID, s.Now(), ErasureClaimLease)
		if err != nil {
			return r, err
		}
		if done {
			return record(gatehouse.ErasureDuplicate, "this notification was erased already", nil)
		}
		if claimed {
			break
		}
		if !clock.Sleep(ctx, erasureClaimPoll) {
			return r, ctx.Err()
		}
	}
	e := s.entry(gatehouse.WithActor(ctx, gatehouse.Actor{Type: gatehouse.ActorSystem}), orgID, gatehouse.AuditPlatformUserErased, gatehouse.TargetPlatformUser).
		Change("notificationId", "", n.NotificationID)
	er, hash, err := s.erase(ctx, orgID, user, e)
	if err != nil {
		release, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
		defer cancel()
		return r, errors.Join(err, s.store.ReleaseErasure(release, orgID, n.NotificationID))
	}
	r.Events, r.Commands, r.UserHash = er.Events, er.Commands, hash
	r, err = record(gatehouse.ErasureErased, "erased", nil)
	if errors.Is(err, gatehouse.ErrConflict) { // the same notification, erased at once by another delivery
		r.ID = gatehouse.NewID()
		return record(gatehouse.ErasureDuplicate, "this notification was erased at the same time by another delivery", nil)
	}
	return r, err
}

// randomText is n random bytes, base64url: tokens and secrets.
func randomText(n int) string {
	b := make([]byte, n)
	rand.Read(b)
	return base64.RawURLEncoding.EncodeToString(b)
}
