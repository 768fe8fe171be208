package httpapi

import "net/http"

// statusCreated and friends keep handler code free of bare numbers.
const (
	statusOK      = http.StatusOK
	statusCreated = http.StatusCreated
)
