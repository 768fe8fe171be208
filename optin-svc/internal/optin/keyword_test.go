package optin_test

import (
	"testing"

	"github.com/paylane/paylane/optin-svc/internal/optin"
)

func TestParseKeyword(t *testing.T) {
	t.Parallel()
	tests := map[string]string{
		"STOP": optin.KeywordStop, "stop": optin.KeywordStop, " Stop. ": optin.KeywordStop,
		"STOPALL": optin.KeywordStop, "unsubscribe": optin.KeywordStop, "Cancel": optin.KeywordStop,
		"END": optin.KeywordStop, "quit!": optin.KeywordStop,
		"START": optin.KeywordStart, "start": optin.KeywordStart,
		"YES": optin.KeywordYes, "yes!": optin.KeywordYes, "\"Yes\"": optin.KeywordYes,
		"HELP": optin.KeywordHelp, "help?": optin.KeywordHelp,
		"": optin.KeywordOther, "please stop": optin.KeywordOther, "YESS": optin.KeywordOther,
		"stop it": optin.KeywordOther, "UNSTOP": optin.KeywordOther, "Y": optin.KeywordOther,
	}
	for body, want := range tests {
		t.Run(body, func(t *testing.T) {
			t.Parallel()
			if got := optin.ParseKeyword(body); got != want {
				t.Errorf("ParseKeyword(%q) = %s, want %s", body, got, want)
			}
		})
	}
}
