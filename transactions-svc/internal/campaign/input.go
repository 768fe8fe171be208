package campaign

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"

	"github.com/paylane/paylane/transactions-svc/internal/txn"
	"github.com/paylane/paylane/transactions-svc/internal/verr"
)

// Input is a create or PUT body; nil means absent or null.
type Input struct {
	Name      *string
	Direction *string
	Status    *string
	IsActive  *bool
	Priority  *int64
	Steps     []StepInput
	Rules     []RuleInput
}

// StepInput is a step as sent.
type StepInput struct {
	DelayHours *int64
	Message    *string
}

// RuleInput is a rule as sent.
type RuleInput struct {
	Field *string
	Op    *string
	Value json.RawMessage
}

// New validates a create: a draft campaign, active unless is_active is false.
func New(in Input) (Campaign, error) {
	p := verr.Problems{}
	if in.Status != nil && *in.Status != string(Draft) {
		p.Add("status", "A campaign is created as a draft; publish it with POST /campaigns/{campaign}/publish.")
	}
	c := Campaign{Status: Draft, Direction: direction(p, in.Direction)}
	apply(p, &c, in)
	return c, p.Err()
}

// Replace applies a PUT to c. The direction may change only while c is a
// draft; status may stay as it is or go from published to archived.
func (c Campaign) Replace(in Input) (Campaign, error) {
	p := verr.Problems{}
	d := direction(p, in.Direction)
	if d != "" && d != c.Direction && c.Status != Draft {
		p.Add("direction", "The direction field cannot be changed once the campaign is published.")
	}
	if d != "" {
		c.Direction = d
	}
	if in.Status != nil {
		switch to := Status(*in.Status); {
		case to == c.Status:
		case c.Status == Published && to == Archived:
			c.Status = Archived
		case to == Published && c.Status == Draft:
			p.Add("status", "Publish a campaign with POST /campaigns/{campaign}/publish.")
		default:
			p.Add("status", fmt.Sprintf("The status cannot change from %s to %s.", c.Status, *in.Status))
		}
	}
	apply(p, &c, in)
	return c, p.Err()
}

func direction(p verr.Problems, d *string) txn.Direction {
	switch {
	case d == nil || *d == "":
		p.Add("direction", "The direction field is required.")
	case !txn.Direction(*d).Valid():
		p.Add("direction", "The selected direction is invalid (receivable or payable).")
	default:
		return txn.Direction(*d)
	}
	return ""
}

// apply validates and sets the mutable fields.
func apply(p verr.Problems, c *Campaign, in Input) {
	switch {
	case in.Name == nil || strings.TrimSpace(*in.Name) == "":
		p.Add("name", "The name field is required.")
	case utf8.RuneCountInString(strings.TrimSpace(*in.Name)) > MaxNameLength:
		p.Add("name", fmt.Sprintf("The name field must not be greater than %d characters.", MaxNameLength))
	default:
		c.Name = strings.TrimSpace(*in.Name)
	}
	c.IsActive = in.IsActive == nil || *in.IsActive
	c.Priority = 0
	if in.Priority != nil {
		if *in.Priority < MinPriority || *in.Priority > MaxPriority {
			p.Add("priority", fmt.Sprintf("The priority field must be between %d and %d.", MinPriority, MaxPriority))
		} else {
			c.Priority = int(*in.Priority)
		}
	}
	c.Steps = steps(p, in.Steps)
	c.Rules = rules(p, in.Rules)
}

// placeholderRE finds {{ name }} placeholders in a step message.
func placeholderRE() *regexp.Regexp { return regexp.MustCompile(`\{\{\s*([^}]*?)\s*\}\}`) }

func steps(p verr.Problems, in []StepInput) []Step {
	if len(in) > MaxSteps {
		p.Add("steps", fmt.Sprintf("The steps field must not have more than %d items.", MaxSteps))
		return nil
	}
	out := make([]Step, 0, len(in))
	re := placeholderRE()
	for i, s := range in {
		field := fmt.Sprintf("steps.%d.", i)
		if s.DelayHours == nil || *s.DelayHours < 1 || *s.DelayHours > MaxDelayHours {
			p.Add(field+"delay_hours", fmt.Sprintf("The %sdelay_hours field must be between 1 and %d.", field, MaxDelayHours))
		}
		msg := ""
		if s.Message != nil {
			msg = strings.TrimSpace(*s.Message)
		}
		switch {
		case msg == "":
			p.Add(field+"message", "The "+field+"message field is required.")
		case utf8.RuneCountInString(msg) > MaxMessageLength:
			p.Add(field+"message", fmt.Sprintf("The %smessage field must not be greater than %d characters.", field, MaxMessageLength))
		}
		for _, m := range re.FindAllStringSubmatch(msg, -1) {
			if m[1] != "first_name" && m[1] != "amount" && m[1] != "link" {
				p.Add(field+"message", "The placeholder {{"+m[1]+"}} is unknown (use {{first_name}}, {{amount}} or {{link}}).")
			}
		}
		if s.DelayHours != nil {
			out = append(out, Step{DelayHours: int(*s.DelayHours), Message: msg})
		}
	}
	return out
}

func rules(p verr.Problems, in []RuleInput) []Rule {
	if len(in) > MaxRules {
		p.Add("rules", fmt.Sprintf("The rules field must not have more than %d items.", MaxRules))
		return nil
	}
	out := make([]Rule, 0, len(in))
	for i, r := range in {
		prefix := fmt.Sprintf("rules.%d.", i)
		field, op := deref(r.Field), deref(r.Op)
		if sub, msg := checkRule(field, op, bytes.TrimSpace(r.Value)); msg != "" {
			p.Add(prefix+sub, "The "+prefix+sub+" field "+msg)
			continue
		}
		out = append(out, Rule{Field: field, Op: op, Value: compact(r.Value)})
	}
	return out
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

func compact(raw json.RawMessage) json.RawMessage {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return raw
	}
	return b.Bytes()
}
