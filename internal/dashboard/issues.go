package dashboard

import (
	"slices"
	"strings"
)

// fieldLabels are the Event Log's filter fields as its form names them.
var fieldLabels = map[string]string{
	"dateFrom": "From", "dateTo": "To", "platformUserId": "Platform user", "accessPointId": "Access point",
	"locationId": "Location", "allowed": "Outcome", "scope": "Unlock scope", "limit": "Per page",
	"q": "Search", "reason": "Reason", "type": "Type", "cursor": "Page",
}

// issuesInWords rewrites the API's validation issues for the Event Log's
// form: fields by their labels, and dates in words rather than the API's
// RFC 3339 (a person picks a day; a program writes a timestamp).
func issuesInWords(issues map[string][]string) map[string][]string {
	out := map[string][]string{}
	for field, msgs := range issues {
		label := fieldLabels[field]
		if label == "" {
			label = field
		}
		for _, m := range msgs {
			switch {
			case field == "dateFrom" || field == "dateTo":
				if strings.Contains(m, "after dateTo") {
					m = "is after To; the window must start before it ends"
				} else {
					m = "is not a date: pick a day in the calendar, or write it as 2026-11-20"
				}
			case field == "cursor":
				m = "does not belong to these filters; go back to the first page"
			}
			out[label] = append(out[label], m)
		}
	}
	return out
}

// issuesSentence writes issues on one line, fields in order.
func issuesSentence(issues map[string][]string) string {
	var parts []string
	for label, msgs := range issues {
		for _, m := range msgs {
			parts = append(parts, label+" "+m)
		}
	}
	slices.Sort(parts)
	return strings.Join(parts, "; ") + "."
}
