package devstack

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// Lifetimes of the generated certificates.
const (
	caValidity   = 10 * 365 * 24 * time.Hour
	leafValidity = 365 * 24 * time.Hour
	// leafRenewBefore renews the gateway certificate when it expires within
	// this window, so a long-lived .paylane never serves an expired one.
	leafRenewBefore = 7 * 24 * time.Hour
)

// TLSFiles are the paths of the local CA and the gateway certificate.
type TLSFiles struct {
	CACert, CAKey, Cert, Key string
}

func tlsFiles(dir string) TLSFiles {
	return TLSFiles{
		CACert: filepath.Join(dir, "ca.pem"),
		CAKey:  filepath.Join(dir, "ca-key.pem"),
		Cert:   filepath.Join(dir, "gateway.pem"),
		Key:    filepath.Join(dir, "gateway-key.pem"),
	}
}

// EnsureTLS makes sure dir holds a local CA and a gateway certificate for
// localhost, 127.0.0.1 and ::1 signed by it. Existing files are reused; the
// gateway certificate alone is reissued when it is missing, no longer
// verifies against the CA or is about to expire, and everything is
// regenerated when the CA itself is unusable.
func EnsureTLS(dir string, now time.Time) (TLSFiles, error) {
	files := tlsFiles(dir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return files, fmt.Errorf("creating tls dir: %w", err)
	}
	ca, caKey, err := loadCA(files, now)
	if err != nil {
		ca, caKey, err = newCA(files, now)
		if err != nil {
			return files, err
		}
	}
	if leafUsable(files, ca, now) {
		return files, nil
	}
	if err := newLeaf(files, ca, caKey, now); err != nil {
		return files, err
	}
	return files, nil
}

func loadCA(files TLSFiles, now time.Time) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	cert, err := readCert(files.CACert)
	if err != nil {
		return nil, nil, err
	}
	key, err := readKey(files.CAKey)
	if err != nil {
		return nil, nil, err
	}
	if !cert.IsCA || now.After(cert.NotAfter.Add(-leafValidity)) {
		return nil, nil, errors.New("ca certificate unusable")
	}
	pub, ok := cert.PublicKey.(*ecdsa.PublicKey)
	if !ok || !pub.Equal(&key.PublicKey) {
		return nil, nil, errors.New("ca key does not match certificate")
	}
	return cert, key, nil
}

func leafUsable(files TLSFiles, ca *x509.Certificate, now time.Time) bool {
	cert, err := readCert(files.Cert)
	if err != nil {
		return false
	}
	key, err := readKey(files.Key)
	if err != nil {
		return false
	}
	if pub, ok := cert.PublicKey.(*ecdsa.PublicKey); !ok || !pub.Equal(&key.PublicKey) {
		return false
	}
	roots := x509.NewCertPool()
	roots.AddCert(ca)
	_, err = cert.Verify(x509.VerifyOptions{
		DNSName:     "localhost",
		Roots:       roots,
		CurrentTime: now.Add(leafRenewBefore),
		KeyUsages:   []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
	})
	return err == nil
}

func newCA(files TLSFiles, now time.Time) (*x509.Certificate, *ecdsa.PrivateKey, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generating ca key: %w", err)
	}
	serial, err := randomSerial()
	if err != nil {
		return nil, nil, err
	}
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{Organization: []string{"Paylane devstack"}, CommonName: "Paylane devstack local CA"},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.Add(caValidity),
		KeyUsage:              x509.KeyUsageCertSign | x509.KeyUsageCRLSign | x509.KeyUsageDigitalSignature,
		BasicConstraintsValid: true,
		IsCA:                  true,
		MaxPathLenZero:        true,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("creating ca certificate: %w", err)
	}
	if err := writeKeyAndCert(files.CAKey, files.CACert, key, der); err != nil {
		return nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, fmt.Errorf("parsing ca certificate: %w", err)
	}
	return cert, key, nil
}

func newLeaf(files TLSFiles, ca *x509.Certificate, caKey *ecdsa.PrivateKey, now time.Time) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("generating gateway key: %w", err)
	}
	serial, err := randomSerial()
	if err != nil {
		return err
	}
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{Organization: []string{"Paylane devstack"}, CommonName: "localhost"},
		NotBefore:    now.Add(-time.Hour),
		NotAfter:     now.Add(leafValidity),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     []string{"localhost"},
		IPAddresses:  []net.IP{net.ParseIP("127.0.0.1"), net.ParseIP("::1")},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		return fmt.Errorf("creating gateway certificate: %w", err)
	}
	return writeKeyAndCert(files.Key, files.Cert, key, der)
}

func randomSerial() (*big.Int, error) {
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	if err != nil {
		return nil, fmt.Errorf("generating serial: %w", err)
	}
	return serial, nil
}

func writeKeyAndCert(keyPath, certPath string, key *ecdsa.PrivateKey, der []byte) error {
	keyDER, err := x509.MarshalPKCS8PrivateKey(key)
	if err != nil {
		return fmt.Errorf("encoding key: %w", err)
	}
	keyPEM := pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: keyDER})
	if err := writeFileAtomic(keyPath, keyPEM, 0o600); err != nil {
		return err
	}
	certPEM := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	return writeFileAtomic(certPath, certPEM, 0o644)
}

func readCert(path string) (*x509.Certificate, error) {
	block, err := readPEM(path, "CERTIFICATE")
	if err != nil {
		return nil, err
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", path, err)
	}
	return cert, nil
}

func readKey(path string) (*ecdsa.PrivateKey, error) {
	block, err := readPEM(path, "PRIVATE KEY")
	if err != nil {
		return nil, err
	}
	parsed, err := x509.ParsePKCS8PrivateKey(block.Bytes)
	if err != nil {
		return nil, fmt.Errorf("parsing %s: %w", path, err)
	}
	key, ok := parsed.(*ecdsa.PrivateKey)
	if !ok {
		return nil, fmt.Errorf("%s: not an ecdsa key", path)
	}
	return key, nil
}

func readPEM(path, typ string) (*pem.Block, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	block, _ := pem.Decode(data)
	if block == nil || block.Type != typ {
		return nil, fmt.Errorf("%s: no %s block", path, typ)
	}
	return block, nil
}
