package server_test

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// answer is how a test receiver answers one request: after delay, with
// status (and Retry-After when set), or by hanging up without an answer
// (malformed).
type answer struct {
	delay      time.Duration
	status     int
	retryAfter string
	malformed  bool
}

// chatReceiver stands in for Discord's or Slack's incoming webhooks: it
// checks every message against that platform's documented shape and
// limits, and answers by its script (then 204 for Discord, 200 "ok" for
// Slack, as they do).
type chatReceiver struct {
	t      *testing.T
	srv    *httptest.Server
	check  func(body []byte) error
	mu     sync.Mutex
	script []answer
	got    []received
}

// received is one request a receiver got, and when.
type received struct {
	at     time.Time
	header http.Header
	body   []byte
	ok     bool
}

func newChatReceiver(t *testing.T, check func([]byte) error, success int, script ...answer) *chatReceiver {
	r := &chatReceiver{t: t, check: check, script: script}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		body, _ := io.ReadAll(req.Body)
		if err := r.check(body); err != nil {
			t.Errorf("a message breaks the platform's rules: %v\n%s", err, body)
		}
		r.mu.Lock()
		a := answer{status: success}
		if len(r.script) > 0 {
			a, r.script = r.script[0], r.script[1:]
		}
		r.got = append(r.got, received{at: time.Now(), header: req.Header.Clone(), body: body, ok: a.status/100 == 2 && !a.malformed})
		r.mu.Unlock()
		time.Sleep(a.delay)
		if a.malformed {
			conn, buf, err := w.(http.Hijacker).Hijack()
			if err == nil {
				buf.WriteString("HTTP/1.1 2OO garbage\r\n\r\n")
				buf.Flush()
				conn.Close()
			}
			return
		}
		if a.retryAfter != "" {
			w.Header().Set("Retry-After", a.retryAfter)
		}
		w.WriteHeader(a.status)
		if a.status == http.StatusOK {
			w.Write([]byte("ok"))
		}
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *chatReceiver) messages() []received {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.got)
}

// delivered are the messages answered 2xx.
func (r *chatReceiver) delivered() []received {
	var ok []received
	for _, m := range r.messages() {
		if m.ok {
			ok = append(ok, m)
		}
	}
	return ok
}

func runes(s string) int { return utf8.RuneCountInString(s) }

// checkDiscord holds a body to Discord's execute-webhook message:
// content or embeds; content ≤ 2,000 characters; ≤ 10 embeds, each with
// title ≤ 256, description ≤ 4,096, ≤ 25 fields of non-empty name ≤ 256
// and value ≤ 1,024, an absolute http(s) url if any, and ≤ 6,000
// characters in all; no field Discord does not know.
func checkDiscord(body []byte) error {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(body, &m); err != nil {
		return err
	}
	for k := range m {
		if !slices.Contains([]string{"content", "embeds", "allowed_mentions", "username", "avatar_url", "tts"}, k) {
			return fmt.Errorf("unknown field %q", k)
		}
	}
	var msg struct {
		Content string `json:"content"`
		Embeds  []struct {
			Title       string `json:"title"`
			Description string `json:"description"`
			URL         string `json:"url"`
			Timestamp   string `json:"timestamp"`
			Fields      []struct {
				Name   string `json:"name"`
				Value  string `json:"value"`
				Inline bool   `json:"inline"`
			} `json:"fields"`
		} `json:"embeds"`
		AllowedMentions *struct {
			Parse []string `json:"parse"`
		} `json:"allowed_mentions"`
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		return err
	}
	switch {
	case msg.Content == "" && len(msg.Embeds) == 0:
		return fmt.Errorf("neither content nor embeds")
	case runes(msg.Content) > 2000:
		return fmt.Errorf("content of %d characters", runes(msg.Content))
	case len(msg.Embeds) > 10:
		return fmt.Errorf("%d embeds", len(msg.Embeds))
	case msg.AllowedMentions == nil || len(msg.AllowedMentions.Parse) != 0:
		return fmt.Errorf("mentions are not disabled: a rule's name could ping @everyone")
	}
	for _, e := range msg.Embeds {
		total := runes(e.Title) + runes(e.Description)
		switch {
		case runes(e.Title) > 256:
			return fmt.Errorf("embed title of %d", runes(e.Title))
		case runes(e.Description) > 4096:
			return fmt.Errorf("embed description of %d", runes(e.Description))
		case len(e.Fields) > 25:
			return fmt.Errorf("%d fields", len(e.Fields))
		}
		if e.URL != "" {
			if u, err := url.Parse(e.URL); err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" {
				return fmt.Errorf("embed url %q is not absolute", e.URL)
			}
		}
		if e.Timestamp != "" {
			if _, err := time.Parse(time.RFC3339, e.Timestamp); err != nil {
				return fmt.Errorf("embed timestamp %q", e.Timestamp)
			}
		}
		for _, f := range e.Fields {
			total += runes(f.Name) + runes(f.Value)
			if f.Name == "" || f.Value == "" || runes(f.Name) > 256 || runes(f.Value) > 1024 {
				return fmt.Errorf("field %q: %q", f.Name, f.Value)
			}
		}
		if total > 6000 {
			return fmt.Errorf("embed of %d characters", total)
		}
	}
	return nil
}

// checkSlack holds a body to Slack's incoming-webhook message: text (the
// notification's fallback, ≤ 4,000 characters as Slack recommends) and
// ≤ 50 blocks, each header ≤ 150 characters of plain_text, each section
// with text ≤ 3,000 and ≤ 10 fields of ≤ 2,000, each context ≤ 10
// elements.
func checkSlack(body []byte) error {
	type text struct {
		Type string `json:"type"`
		Text string `json:"text"`
	}
	var msg struct {
		Text   string `json:"text"`
		Blocks []struct {
			Type     string `json:"type"`
			Text     *text  `json:"text"`
			Fields   []text `json:"fields"`
			Elements []text `json:"elements"`
		} `json:"blocks"`
	}
	if err := json.Unmarshal(body, &msg); err != nil {
		return err
	}
	switch {
	case msg.Text == "" || runes(msg.Text) > 4000:
		return fmt.Errorf("text of %d characters", runes(msg.Text))
	case len(msg.Blocks) == 0 || len(msg.Blocks) > 50:
		return fmt.Errorf("%d blocks", len(msg.Blocks))
	}
	for _, b := range msg.Blocks {
		switch b.Type {
		case "header":
			if b.Text == nil || b.Text.Type != "plain_text" || b.Text.Text == "" || runes(b.Text.Text) > 150 {
				return fmt.Errorf("header %+v", b.Text)
			}
		case "section":
			if b.Text == nil && len(b.Fields) == 0 {
				return fmt.Errorf("a section with neither text nor fields")
			}
			if b.Text != nil && (runes(b.Text.Text) > 3000 || b.Text.Text == "" || (b.Text.Type != "mrkdwn" && b.Text.Type != "plain_text")) {
				return fmt.Errorf("section text %+v", b.Text)
			}
			if len(b.Fields) > 10 {
				return fmt.Errorf("%d section fields", len(b.Fields))
			}
			for _, f := range b.Fields {
				if f.Text == "" || runes(f.Text) > 2000 {
					return fmt.Errorf("section field %+v", f)
				}
			}
		case "context":
			if len(b.Elements) == 0 || len(b.Elements) > 10 {
				return fmt.Errorf("context of %d elements", len(b.Elements))
			}
		default:
			return fmt.Errorf("block type %q", b.Type)
		}
	}
	return nil
}

func newDiscord(t *testing.T, script ...answer) *chatReceiver {
	return newChatReceiver(t, checkDiscord, http.StatusNoContent, script...)
}

func newSlack(t *testing.T, script ...answer) *chatReceiver {
	return newChatReceiver(t, checkSlack, http.StatusOK, script...)
}
