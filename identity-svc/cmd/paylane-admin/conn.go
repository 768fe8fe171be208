package main

import (
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"time"

	"github.com/paylane/paylane/identity-svc/client"
)

// devstackFile is where the local stack writes how to reach it.
const devstackFile = ".paylane/devstack.json"

// requestTimeout bounds every admin call.
const requestTimeout = 30 * time.Second

// connOptions say how to reach the admin plane; flags win over the
// environment, which wins over devstack.json.
type connOptions struct {
	configFile string
	adminURL   string
	adminToken string
	caFile     string
}

// devstack is the part of devstack.json the CLI reads.
type devstack struct {
	AdminURL   string `json:"admin_url"`
	AdminToken string `json:"admin_token"`
	CAFile     string `json:"ca_file"`
}

// client resolves the options and builds the admin client.
func (o connOptions) client() (*client.Admin, error) {
	ds, dsDir, err := loadDevstack(o.configFile)
	if err != nil {
		return nil, err
	}
	url := firstNonEmpty(o.adminURL, os.Getenv("PAYLANE_ADMIN_URL"), ds.AdminURL)
	token := firstNonEmpty(o.adminToken, os.Getenv("PAYLANE_ADMIN_TOKEN"), ds.AdminToken)
	caFile := firstNonEmpty(o.caFile, os.Getenv("PAYLANE_CA_FILE"), resolvePath(dsDir, ds.CAFile))
	if url == "" || token == "" {
		return nil, errors.New("no admin URL or token: run the devstack (make run), or set --admin-url/--admin-token or PAYLANE_ADMIN_URL/PAYLANE_ADMIN_TOKEN")
	}
	hc, err := httpClient(caFile)
	if err != nil {
		return nil, err
	}
	return client.NewAdmin(url, token, hc), nil
}

// loadDevstack reads the given devstack.json, or searches for
// .paylane/devstack.json from the working directory upwards. A missing file
// is not an error when none was named. It returns the file's directory, the
// base of relative paths in it.
func loadDevstack(path string) (devstack, string, error) {
	if path == "" {
		path = findDevstack()
		if path == "" {
			return devstack{}, "", nil
		}
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return devstack{}, "", fmt.Errorf("reading %s: %w", path, err)
	}
	var ds devstack
	if err := json.Unmarshal(data, &ds); err != nil {
		return devstack{}, "", fmt.Errorf("parsing %s: %w", path, err)
	}
	return ds, filepath.Dir(path), nil
}

func findDevstack() string {
	dir, err := os.Getwd()
	if err != nil {
		return ""
	}
	for {
		candidate := filepath.Join(dir, devstackFile)
		if _, err := os.Stat(candidate); err == nil {
			return candidate
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return ""
		}
		dir = parent
	}
}

// resolvePath makes a relative path of devstack.json absolute: relative to
// the file's directory, else to the directory holding .paylane.
func resolvePath(dir, p string) string {
	if p == "" || filepath.IsAbs(p) || dir == "" {
		return p
	}
	for _, base := range []string{dir, filepath.Dir(dir)} {
		if _, err := os.Stat(filepath.Join(base, p)); err == nil {
			return filepath.Join(base, p)
		}
	}
	return filepath.Join(dir, p)
}

// httpClient trusts the system roots plus caFile when given.
func httpClient(caFile string) (*http.Client, error) {
	hc := &http.Client{Timeout: requestTimeout}
	if caFile == "" {
		return hc, nil
	}
	pem, err := os.ReadFile(caFile)
	if err != nil {
		return nil, fmt.Errorf("reading CA file: %w", err)
	}
	roots, err := x509.SystemCertPool()
	if err != nil || roots == nil {
		roots = x509.NewCertPool()
	}
	if !roots.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("no certificate found in %s", caFile)
	}
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = &tls.Config{RootCAs: roots, MinVersion: tls.VersionTLS12}
	hc.Transport = transport
	return hc, nil
}

func firstNonEmpty(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
