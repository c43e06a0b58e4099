package cli

import (
	"errors"
	"fmt"
	"net"
	"syscall"
)

// boundAddrs are the listeners of --addr and, when set, --metrics-addr.
type boundAddrs struct{ api, metrics net.Listener }

// listen binds --addr and --metrics-addr. An address in use is an error
// that names its flag.
func (s serveSettings) listen() (boundAddrs, error) {
	var b boundAddrs
	var err error
	if b.api, err = listenOn("addr", *s.addr); err != nil {
		return boundAddrs{}, err
	}
	if *s.metricsAddr != "" {
		if b.metrics, err = listenOn("metrics-addr", *s.metricsAddr); err != nil {
			b.api.Close()
			return boundAddrs{}, err
		}
	}
	return b, nil
}

func listenOn(flagName, addr string) (net.Listener, error) {
	ln, err := net.Listen("tcp", addr)
	if errors.Is(err, syscall.EADDRINUSE) {
		return nil, fmt.Errorf("--%s %s: the address is in use by another program; stop it or choose another --%s (%w)", flagName, addr, flagName, err)
	}
	if err != nil {
		return nil, fmt.Errorf("--%s %s: %w", flagName, addr, err)
	}
	return ln, nil
}

// close releases addresses that will not be served.
func (b boundAddrs) close() {
	for _, ln := range []net.Listener{b.api, b.metrics} {
		if ln != nil {
			ln.Close()
		}
	}
}
