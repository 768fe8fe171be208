package footprint

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
)

// Build compiles packages (import paths) into dir with `go build -o dir`,
// from workdir (the workspace root).
func Build(ctx context.Context, workdir, dir string, packages ...string) error {
	args := append([]string{"build", "-o", dir + string(os.PathSeparator)}, packages...)
	cmd := exec.CommandContext(ctx, "go", args...)
	cmd.Dir = workdir
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("go build: %w\n%s", err, out)
	}
	return nil
}

// FreeAddr returns a 127.0.0.1 address with a port nothing listens on now.
func FreeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", fmt.Errorf("finding a free port: %w", err)
	}
	defer ln.Close()
	return ln.Addr().String(), nil
}
