package optin

import "strings"

// Keywords of inbound SMS (contract section 10).
const (
	KeywordStop  = "stop"
	KeywordStart = "start"
	KeywordYes   = "yes"
	KeywordHelp  = "help"
	KeywordOther = "other"
)

// keywords maps the words a recipient may reply to their keyword.
var keywords = map[string]string{
	"STOP": KeywordStop, "STOPALL": KeywordStop, "UNSUBSCRIBE": KeywordStop,
	"CANCEL": KeywordStop, "END": KeywordStop, "QUIT": KeywordStop,
	"START": KeywordStart,
	"YES":   KeywordYes,
	"HELP":  KeywordHelp,
}

// ParseKeyword reads the keyword of an inbound SMS: the whole text, case
// and surrounding spaces and punctuation ignored ("Stop.", " yes! "), as
// carriers match them. Anything else is KeywordOther.
func ParseKeyword(body string) string {
	word := strings.ToUpper(strings.Trim(body, " \t\r\n.!?,;:'\"()"))
	if k, ok := keywords[word]; ok {
		return k
	}
	return KeywordOther
}
