package httpx_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/gofiber/fiber/v2"

	"github.com/paylane/paylane/libs/httpx"
)

// An internal token holding every ability is about 4 KB, fasthttp's whole
// default read buffer: services must read it.
func TestHeadersOfAFullInternalToken(t *testing.T) {
	t.Parallel()
	app := httpx.NewApp(nil)
	app.Get("/x", func(c *fiber.Ctx) error { return c.SendString("ok") })
	tests := []struct {
		name   string
		size   int
		status int
	}{
		{"token with every ability", 8 << 10, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			req := httptest.NewRequest(http.MethodGet, "/x", nil)
			req.Header.Set("Authorization", "Bearer "+strings.Repeat("a", tt.size))
			resp, err := app.Test(req, -1)
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			if resp.StatusCode != tt.status {
				t.Errorf("status = %d, want %d", resp.StatusCode, tt.status)
			}
		})
	}
}
