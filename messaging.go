package gatehouse

// MessagingKey is a universe whose organization configured the
// platform's messaging (Open Cloud) for it, as every door lists it: the
// key itself is sealed in the store and never shown again, only its hint.
type MessagingKey struct {
	UniverseID string `json:"universeId"`
	// Hint is the key's last 4 characters, so a person can tell which key
	// is set.
	Hint      string `json:"hint"`
	CreatedAt Time   `json:"createdAt"`
}

// Bounds of an Open Cloud API key as Gatehouse accepts it: the
// platform's keys are long printable strings; the minimum keeps the hint
// (its last 4 characters) a small part of it.
const (
	MinMessagingKey = 16
	MaxMessagingKey = 4096
)

// IsMessagingKey reports whether k can be an Open Cloud API key: printable
// ASCII without spaces, of a bounded length.
func IsMessagingKey(k string) bool {
	if len(k) < MinMessagingKey || len(k) > MaxMessagingKey {
		return false
	}
	for i := 0; i < len(k); i++ {
		if k[i] <= ' ' || k[i] > '~' {
			return false
		}
	}
	return true
}
