package gatehouse_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/gatehouse/gatehouse"
)

// TestAlertMessagesKeepToThePlatformsLimits: whatever the lengths of a
// rule's name, a group or an audit target, Discord's and Slack's bodies
// stay within their documented limits, mention no one, and escape
// Slack's markup.
func TestAlertMessagesKeepToThePlatformsLimits(t *testing.T) {
	long := strings.Repeat("ü<@everyone>&", 800)
	at := gatehouse.Time(time.Date(2026, 11, 20, 12, 0, 0, 0, time.UTC))
	for _, a := range []gatehouse.Alert{
		{RuleName: long, Kind: gatehouse.AlertThreshold, GroupBy: "platformUserId", Group: long, Count: 10, WindowSeconds: 300,
			WindowStart: at, WindowEnd: at, FiredAt: at, Link: "https://gatehouse.example.com/dashboard/events?platformUserId=" + strings.Repeat("9", 3000)},
		{RuleName: "Keys", Kind: gatehouse.AlertAudit, GroupBy: "action", Group: "x", Count: 1, FiredAt: at, Link: "/dashboard/audit",
			Audit: &gatehouse.AlertAuditEntry{Action: "api_key.created", Actor: long, Target: long}},
		{RuleName: "Test", Test: true, FiredAt: at},
	} {
		var discord struct {
			Content string `json:"content"`
			Embeds  []struct {
				Title, Description string
				Fields             []struct{ Name, Value string }
			} `json:"embeds"`
			AllowedMentions struct {
				Parse []string `json:"parse"`
			} `json:"allowed_mentions"`
		}
		body, err := gatehouse.AlertMessage(gatehouse.AlertDiscord, a)
		if err != nil {
			t.Fatal(err)
		}
		json.Unmarshal(body, &discord)
		n := utf8.RuneCountInString
		total := n(discord.Embeds[0].Title) + n(discord.Embeds[0].Description)
		if n(discord.Content) > 2000 || n(discord.Embeds[0].Title) > 256 || n(discord.Embeds[0].Description) > 4096 ||
			discord.AllowedMentions.Parse == nil || len(discord.AllowedMentions.Parse) != 0 || len(discord.Embeds[0].Fields) > 25 {
			t.Errorf("Discord: content %d, title %d, mentions %v", n(discord.Content), n(discord.Embeds[0].Title), discord.AllowedMentions.Parse)
		}
		for _, f := range discord.Embeds[0].Fields {
			total += n(f.Name) + n(f.Value)
			if n(f.Name) > 256 || n(f.Value) > 1024 || f.Name == "" || f.Value == "" {
				t.Errorf("Discord field %d/%d", n(f.Name), n(f.Value))
			}
		}
		if total > 6000 {
			t.Errorf("Discord embed of %d characters", total)
		}

		var slack struct {
			Text   string `json:"text"`
			Blocks []struct {
				Type   string
				Text   *struct{ Text string }
				Fields []struct{ Text string }
			} `json:"blocks"`
		}
		body, _ = gatehouse.AlertMessage(gatehouse.AlertSlack, a)
		json.Unmarshal(body, &slack)
		if n(slack.Text) > 4000 || len(slack.Blocks) > 50 {
			t.Errorf("Slack: text %d, %d blocks", n(slack.Text), len(slack.Blocks))
		}
		for _, b := range slack.Blocks {
			if b.Type == "header" && n(b.Text.Text) > 150 || b.Text != nil && n(b.Text.Text) > 3000 || len(b.Fields) > 10 {
				t.Errorf("Slack block %s over its limits", b.Type)
			}
			for _, f := range b.Fields {
				if n(f.Text) > 2000 {
					t.Errorf("Slack field of %d", n(f.Text))
				}
			}
			if b.Type == "section" && b.Text != nil && strings.Contains(b.Text.Text, "<@everyone>") {
				t.Errorf("Slack markup not escaped: %.80s", b.Text.Text)
			}
		}
	}
}
