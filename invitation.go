package gatehouse

import (
	"crypto/sha256"
	"time"

	"github.com/google/uuid"
)

// InvitationLifetime is how long an invitation link is good for.
const InvitationLifetime = 7 * 24 * time.Hour

// Invitation is the link an admin hands a user they added, for the user
// to set their own password (or, with single sign-on, to sign in through
// the provider): one per user not yet proven ([User.Proven]), good until
// ExpiresAt and once. Only the SHA-256 of the link's random token is
// kept, as for API keys: the token has 256 bits, so the hash needs no
// secret, and an organization moved to another installation keeps its
// links.
type Invitation struct {
	OrgID     uuid.UUID
	UserID    uuid.UUID
	Hash      [32]byte
	ExpiresAt time.Time
	CreatedAt time.Time
}

// NewInvitation makes the invitation of the organization's user userID,
// good from now for [InvitationLifetime], and returns it with the raw
// token of its link, which only the admin who asked sees, once.
func NewInvitation(orgID, userID uuid.UUID, now time.Time) (Invitation, string) {
	token := NewToken()
	return Invitation{OrgID: orgID, UserID: userID, Hash: InvitationHash(token),
		ExpiresAt: Truncate(now.Add(InvitationLifetime)), CreatedAt: Truncate(now)}, token
}

// InvitationHash is the hash a link's token is stored and found by.
func InvitationHash(token string) [32]byte { return sha256.Sum256([]byte(token)) }

// InvitationPath is the dashboard's page of an invitation's link, under
// the server's address.
func InvitationPath(token string) string { return "/dashboard/join/" + token }

// Proof is how a user was proven ([User.ProvenBy]).
type Proof string

// The proofs.
const (
	// ProvenByOperator: the operator gave the password (gatehouse user
	// create, user set-password).
	ProvenByOperator Proof = "operator"
	// ProvenByLink: the holder of an invitation's link chose the
	// password; the admin who made the link saw it, so it proves a
	// membership, not the email.
	ProvenByLink Proof = "link"
	// ProvenByProvider: the OpenID provider verified the email.
	ProvenByProvider Proof = "provider"
	// ProvenBySignIn: a sign-in with a password an admin had made, as
	// before invitations had links.
	ProvenBySignIn Proof = "sign-in"
)

// OwnsEmail says whether p proves the person owns the email, not only
// that they hold a membership an admin could have made for anyone.
func (p Proof) OwnsEmail() bool { return p == ProvenByOperator || p == ProvenByProvider }
