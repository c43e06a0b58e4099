package gatehouse

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"
	"unicode/utf8"
)

// Discord's documented limits of an execute-webhook message (characters):
// https://discord.com/developers/docs/resources/message#embed-object-embed-limits
const (
	DiscordContentMax     = 2000
	DiscordEmbedsMax      = 10
	DiscordTitleMax       = 256
	DiscordDescriptionMax = 4096
	DiscordFieldsMax      = 25
	DiscordFieldNameMax   = 256
	DiscordFieldValueMax  = 1024
	DiscordEmbedTotalMax  = 6000
)

// Slack's documented limits of an incoming-webhook message (characters):
// https://api.slack.com/reference/block-kit/blocks
const (
	SlackTextMax          = 4000 // recommended; 40,000 is truncated
	SlackBlocksMax        = 50
	SlackHeaderMax        = 150
	SlackSectionTextMax   = 3000
	SlackSectionFieldsMax = 10
	SlackFieldTextMax     = 2000
)

// AlertSummary is one line saying what fired.
func AlertSummary(a Alert) string {
	switch {
	case a.Test:
		return fmt.Sprintf("Test alert of the rule %q: its destination receives alerts.", a.RuleName)
	case a.Kind == AlertAudit && a.Audit != nil:
		s := string(a.Audit.Action)
		if a.Audit.Target != "" {
			s += " on " + a.Audit.Target
		}
		if a.Audit.Actor != "" {
			s += " by " + a.Audit.Actor
		}
		return s
	}
	return fmt.Sprintf("%d matching events %s within %s", a.Count, alertGroupText(a), WindowText(a.WindowSeconds))
}

func alertGroupText(a Alert) string {
	switch AlertGroupBy(a.GroupBy) {
	case AlertByPlatformUser:
		return "of player " + a.Group
	case AlertByAccessPoint:
		return "at access point " + a.Group
	}
	return "in the organization"
}

// WindowText writes a window of seconds as people read it: 90s, 5m, 2h, 1d.
func WindowText(seconds int) string {
	d := time.Duration(seconds) * time.Second
	switch {
	case seconds%86400 == 0 && seconds > 0:
		return fmt.Sprintf("%dd", seconds/86400)
	case seconds%3600 == 0 && seconds > 0:
		return fmt.Sprintf("%dh", seconds/3600)
	case seconds%60 == 0 && seconds > 0:
		return fmt.Sprintf("%dm", seconds/60)
	}
	return d.String()
}

// cut keeps at most n characters of s, ending with "…" when it cut.
func cut(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// AlertMessage returns the body a destination of format receives for a,
// whose Link is absolute when the server knows its public URL:
//   - discord: {"content", "embeds", "allowed_mentions"}, within Discord's
//     limits, mentioning no one whatever the names hold;
//   - slack: {"text", "blocks"}, within Slack's limits, names escaped;
//   - standard-webhooks: {"type": "alert.fired", "data": a}.
func AlertMessage(format AlertFormat, a Alert) ([]byte, error) {
	switch format {
	case AlertDiscord:
		return json.Marshal(discordMessage(a))
	case AlertSlack:
		return json.Marshal(slackMessage(a))
	}
	return json.Marshal(struct {
		Type WebhookType `json:"type"`
		Data Alert       `json:"data"`
	}{WebhookAlertFired, a})
}

func alertFields(a Alert) [][2]string {
	fields := [][2]string{{"Rule", a.RuleName}}
	switch {
	case a.Kind == AlertAudit && a.Audit != nil:
		fields = append(fields, [2]string{"Action", string(a.Audit.Action)})
		if a.Audit.Target != "" {
			fields = append(fields, [2]string{"Target", a.Audit.Target})
		}
		if a.Audit.Actor != "" {
			fields = append(fields, [2]string{"By", a.Audit.Actor})
		}
	case !a.Test:
		group := a.Group
		if group == "" {
			group = "(the whole organization)"
		}
		fields = append(fields, [2]string{"Group (" + a.GroupBy + ")", group},
			[2]string{"Count", fmt.Sprint(a.Count)},
			[2]string{"Window", WindowText(a.WindowSeconds) + ": " + FormatTime(time.Time(a.WindowStart)) + " to " + FormatTime(time.Time(a.WindowEnd))})
	}
	return fields
}

type discordField struct {
	Name   string `json:"name"`
	Value  string `json:"value"`
	Inline bool   `json:"inline"`
}

type discordEmbed struct {
	Title       string         `json:"title"`
	Description string         `json:"description"`
	URL         string         `json:"url,omitempty"`
	Color       int            `json:"color"`
	Timestamp   string         `json:"timestamp"`
	Fields      []discordField `json:"fields"`
}

func discordMessage(a Alert) map[string]any {
	title := cut("Gatehouse alert: "+a.RuleName, DiscordTitleMax)
	desc := cut(AlertSummary(a), 1000)
	e := discordEmbed{Title: title, Description: desc, Color: 0xD9534F, Timestamp: FormatTime(time.Time(a.FiredAt))}
	if a.Test {
		e.Color = 0x5B9BD5
	}
	if strings.HasPrefix(a.Link, "https://") || strings.HasPrefix(a.Link, "http://") {
		e.URL = a.Link
	}
	for _, f := range alertFields(a) {
		e.Fields = append(e.Fields, discordField{Name: cut(f[0], DiscordFieldNameMax), Value: cut(f[1], 900), Inline: len(f[1]) < 40})
	}
	if a.Link != "" {
		e.Fields = append(e.Fields, discordField{Name: "Event Log", Value: cut(a.Link, DiscordFieldValueMax)})
	}
	// Each part is cut well below its own limit, so the total (title,
	// description, at most six fields) stays under 6,000.
	return map[string]any{
		"content":          cut("**"+title+"**: "+AlertSummary(a), DiscordContentMax),
		"embeds":           []discordEmbed{e},
		"allowed_mentions": map[string]any{"parse": []string{}},
	}
}

// slackEscape escapes what Slack's mrkdwn reads as markup.
func slackEscape(s string) string {
	return strings.NewReplacer("&", "&amp;", "<", "&lt;", ">", "&gt;").Replace(s)
}

func slackText(kind, s string) map[string]any { return map[string]any{"type": kind, "text": s} }

func slackMessage(a Alert) map[string]any {
	summary := AlertSummary(a)
	blocks := []map[string]any{
		{"type": "header", "text": slackText("plain_text", cut("Gatehouse alert: "+a.RuleName, SlackHeaderMax))},
		{"type": "section", "text": slackText("mrkdwn", cut(slackEscape(summary), SlackSectionTextMax))},
	}
	var fields []map[string]any
	for _, f := range alertFields(a) {
		fields = append(fields, slackText("mrkdwn", cut("*"+slackEscape(f[0])+"*\n"+slackEscape(f[1]), SlackFieldTextMax)))
	}
	blocks = append(blocks, map[string]any{"type": "section", "fields": fields[:min(len(fields), SlackSectionFieldsMax)]})
	if strings.HasPrefix(a.Link, "https://") || strings.HasPrefix(a.Link, "http://") {
		blocks = append(blocks, map[string]any{"type": "section",
			"text": slackText("mrkdwn", cut("<"+a.Link+"|Open in the dashboard>", SlackSectionTextMax))})
	} else if a.Link != "" {
		blocks = append(blocks, map[string]any{"type": "context",
			"elements": []any{slackText("mrkdwn", cut("Dashboard: "+slackEscape(a.Link), SlackSectionTextMax))}})
	}
	return map[string]any{"text": cut("Gatehouse alert: "+a.RuleName+": "+summary, SlackTextMax), "blocks": blocks}
}
