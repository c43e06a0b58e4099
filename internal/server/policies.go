package server

import (
	"errors"
	"log/slog"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/gatehouse/gatehouse"
	"github.com/google/uuid"
)

// maxPolicyBody bounds the body of PUT /access-points/{id}/policy. The
// largest valid policy (1,000 allow and 1,000 deny rules with the longest
// ids, 100 windows and 366 exceptions of 10 windows each) is 256 KB
// compact and 520 KB indented by two spaces (TestPolicyBodyLimit measures
// it); 1 MiB takes either with room, and bounds what a request may make
// the server read.
const maxPolicyBody = 1 << 20

var policySetParams = []string{"universeId"}

// showPolicy serves GET /api/consumer/v1/access-points/{id}/policy: the
// current policy with its version as a strong ETag; If-None-Match with
// that version answers 304. An access point without a policy is a 404
// with code policy_not_found.
func (s *server) showPolicy() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := accessPointID(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		cond, ok := parseETagCondition(r.Header, "If-None-Match")
		if !ok {
			s.writeError(w, r, gatehouse.Invalid("If-None-Match", `must be * or a list of entity tags, e.g. "3"`))
			return
		}
		p, err := s.Service.Policy(r.Context(), apiKey(r.Context()).OrgID, id)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		if p == nil {
			s.writeError(w, r, errNoPolicy(id))
			return
		}
		etag := strconv.FormatInt(p.Version, 10)
		if notModified(w, cond, etag) {
			return
		}
		w.Header().Set("ETag", quoteETag(etag))
		writeJSON(w, http.StatusOK, p)
	})
}

// errNoPolicy is the 404 of an access point that has no policy yet: not
// the not_found of an unknown access point, since this one exists and
// decisions for it deny.
func errNoPolicy(id uuid.UUID) error {
	return errorf(http.StatusNotFound, "policy_not_found",
		"access point %s has no policy yet; until one is set (PUT), decisions for it deny with reason ACCESS_POINT_DISABLED", id)
}

// setPolicy serves PUT /api/consumer/v1/access-points/{id}/policy. The
// body is the policy (version and updatedAt ignored); If-Match: "<version>"
// writes only over that version and If-None-Match: * only when the
// access point has no policy yet, else 412. It answers the stored policy
// with its ETag; a body equal to the current policy keeps its version.
func (s *server) setPolicy() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, err := accessPointID(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		p, err := readPolicy(w, r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		orgID := apiKey(r.Context()).OrgID
		ifVersion, err := s.policyPrecondition(r, orgID, id)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		stored, err := s.Service.SetPolicy(r.Context(), orgID, id, p, ifVersion)
		if errors.Is(err, gatehouse.ErrConflict) && !errors.As(err, new(*gatehouse.StateError)) {
			err = errPolicyChanged // an archived access point is a 409 of its own
		}
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		w.Header().Set("ETag", quoteETag(strconv.FormatInt(stored.Version, 10)))
		writeJSON(w, http.StatusOK, stored)
	})
}

// errPolicyChanged is the 412 of a conditional PUT whose condition does
// not hold (any more).
var errPolicyChanged = errorf(http.StatusPreconditionFailed, "precondition_failed",
	"the access point's policy is not the version the request's If-Match or If-None-Match names; read it again (GET) and send your change with its ETag")

// readPolicy reads a PUT's body and every problem of its header fields
// and of the policy at once.
func readPolicy(w http.ResponseWriter, r *http.Request) (gatehouse.Policy, error) {
	data, err := readJSON(w, r, maxPolicyBody)
	if err != nil {
		return gatehouse.Policy{}, err
	}
	var errs gatehouse.ValidationError
	p, err := gatehouse.DecodePolicy(data)
	errs.Absorb("", err)
	for _, name := range []string{"If-Match", "If-None-Match"} {
		if _, ok := parseETagCondition(r.Header, name); !ok {
			errs.Add(name, `must be * or a list of entity tags, e.g. "3"`)
		}
	}
	return p, errs.Err()
}

// policyPrecondition turns a PUT's If-Match and If-None-Match into the
// version the change may replace (0: none yet), nil when the request has
// neither. The common forms, If-Match: "<version>" and If-None-Match: *,
// need no read: the store checks the version in the write. Any other
// (a list, If-Match: *, a weak tag) is evaluated against the current
// version as RFC 9110 says, which the write then requires, so that a
// change made between the two is a 412 too.
func (s *server) policyPrecondition(r *http.Request, orgID, id uuid.UUID) (*int64, error) {
	match, _ := parseETagCondition(r.Header, "If-Match")
	noneMatch, _ := parseETagCondition(r.Header, "If-None-Match")
	switch {
	case match == nil && noneMatch == nil:
		return nil, nil
	case noneMatch == nil && !match.any && len(match.tags) == 1 && !match.tags[0].weak:
		v, err := strconv.ParseInt(match.tags[0].opaque, 10, 64)
		if err != nil || v < 1 {
			return nil, errPolicyChanged // no version of a policy has this tag
		}
		return &v, nil
	case match == nil && noneMatch.any:
		none := int64(0)
		return &none, nil
	}
	current := int64(0)
	p, err := s.Service.Policy(r.Context(), orgID, id)
	if err != nil {
		return nil, err
	}
	if p != nil {
		current = p.Version
	}
	tag := strconv.FormatInt(current, 10)
	if match != nil && (current == 0 || !match.matchesStrong(tag)) {
		return nil, errPolicyChanged
	}
	if noneMatch != nil && (noneMatch.any && current != 0 || !noneMatch.any && current != 0 && noneMatch.matchesWeak(tag)) {
		return nil, errPolicyChanged
	}
	return &current, nil
}

// showPolicySet serves GET /api/consumer/v1/policies?universeId=: every
// policy of the universe with the set's version as a strong ETag, and
// Cache-Control: no-cache, so that game servers (and caches between)
// revalidate each time with If-None-Match and get a 304 while nothing
// changed. The body is the service's encoding of that version, shared
// by every caller, gzipped once for those that accept it.
func (s *server) showPolicySet() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		universeID, cond, err := policySetQuery(r)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		set, err := s.Service.EncodedPolicySet(r.Context(), apiKey(r.Context()).OrgID, universeID)
		if err != nil {
			s.writeError(w, r, err)
			return
		}
		s.Metrics.unreadablePolicies.Add(float64(len(set.Unreadable)))
		for _, u := range set.Unreadable {
			s.Logger.LogAttrs(r.Context(), slog.LevelError, "policy set skips an unreadable policy; replace it with PUT",
				slog.String("universeId", universeID), slog.String("accessPointId", u.AccessPoint.ID.String()),
				slog.Int64("policyVersion", u.PolicyVersion))
		}
		w.Header().Set("Cache-Control", "no-cache")
		if notModified(w, cond, set.Version) {
			return
		}
		h := w.Header()
		h.Set("ETag", quoteETag(set.Version))
		h.Set("Content-Type", "application/json")
		body := set.JSON
		if acceptsGzip(r.Header.Values("Accept-Encoding")) {
			// Compressed once per version; compress leaves an encoded
			// answer as it is, and its Vary to us.
			h.Set("Content-Encoding", "gzip")
			h.Add("Vary", "Accept-Encoding")
			body = set.Gzip
		}
		h.Set("Content-Length", strconv.Itoa(len(body)))
		w.WriteHeader(http.StatusOK)
		w.Write(body) // a failed write means the client left
	})
}

// policySetQuery reads GET /policies' universeId and If-None-Match,
// reporting every problem at once.
func policySetQuery(r *http.Request) (string, *etagCondition, error) {
	v, err := parseQuery(r)
	if err != nil {
		return "", nil, err
	}
	var errs gatehouse.ValidationError
	for name := range v {
		if !slices.Contains(policySetParams, name) {
			errs.Add(gatehouse.Redact(name), "is not a parameter of this endpoint (known: %s)", strings.Join(policySetParams, ", "))
		}
	}
	var universeID string
	switch ids := slices.DeleteFunc(slices.Clone(v["universeId"]), func(s string) bool { return s == "" }); {
	case len(ids) == 0:
		errs.Add("universeId", "is required")
	case len(ids) > 1:
		errs.Add("universeId", "must be given at most once")
	case !gatehouse.IsUniverseID(ids[0]):
		errs.Add("universeId", "must be a platform universe id (digits)")
	default:
		universeID = ids[0]
	}
	cond, ok := parseETagCondition(r.Header, "If-None-Match")
	if !ok {
		errs.Add("If-None-Match", `must be * or a list of entity tags, e.g. "5f0c…"`)
	}
	return universeID, cond, errs.Err()
}

// accessPointID reads the {id} of an access point's path.
func accessPointID(r *http.Request) (uuid.UUID, error) {
	id, err := gatehouse.ParseUUID(r.PathValue("id"))
	if err != nil {
		return uuid.Nil, gatehouse.Invalid("id", "must be a UUID, e.g. 0193a5b2-7c1e-7d3f-9a4b-5c6d7e8f9a0b")
	}
	return id, nil
}
