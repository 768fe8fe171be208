package apitime_test

import (
	"testing"
	"time"

	"github.com/paylane/paylane/libs/apitime"
)

func TestFormatIsUTCWithMilliseconds(t *testing.T) {
	t.Parallel()
	paris := time.FixedZone("CET", 3600)
	for in, want := range map[time.Time]string{
		time.Date(2026, 11, 22, 2, 21, 17, 123456789, paris): "2026-11-22T01:21:17.123Z",
		time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC):          "2026-01-02T03:04:05.000Z",
	} {
		if got := apitime.Format(in); got != want {
			t.Errorf("Format(%v) = %q, want %q", in, got, want)
		}
		if got := apitime.FormatPtr(&in); got == nil || *got != want {
			t.Errorf("FormatPtr(%v) = %v, want %q", in, got, want)
		}
	}
	if got := apitime.FormatPtr(nil); got != nil {
		t.Errorf("FormatPtr(nil) = %q, want nil", *got)
	}
}
