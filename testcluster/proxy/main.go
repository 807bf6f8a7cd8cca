// Command testproxy is a forward proxy on loopback for listwatch's integration tests:
// an HTTP proxy (CONNECT tunnels and plain requests, github.com/elazarl/goproxy), served
// in clear (-kind http) or over TLS (-kind https), or a SOCKS5 server
// (github.com/armon/go-socks5, -kind socks5). With -user it demands those credentials:
// Basic Proxy-Authorization for HTTP, the username/password method for SOCKS5.
//
// It prints one line per event on standard output, for the test that started it:
//
//	listening <kind> <address>
//	connect user=<user> target=<host:port>     a tunnel it opened (CONNECT or SOCKS5)
//	request user=<user> url=<url>              a plain request it forwarded
//	refused reason=<reason> target=<host:port> credentials missing or wrong
//
// It never prints a password. -map-to IP dials every target at IP instead of resolving
// its host (the port is kept), so that a test can name the API server by a name that
// resolves nowhere and prove that only the proxy reached it. It exits when its standard
// input closes, so it never outlives the process that started it.
package main

import (
	"context"
	"crypto/subtle"
	"crypto/tls"
	"encoding/base64"
	"flag"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"

	socks5 "github.com/armon/go-socks5"
	"github.com/elazarl/goproxy"
)

var out sync.Mutex

func say(format string, args ...any) {
	out.Lock()
	defer out.Unlock()
	fmt.Printf(format+"\n", args...)
}

func main() {
	kind := flag.String("kind", "http", "http, https or socks5")
	listen := flag.String("listen", "127.0.0.1:0", "address to listen on")
	user := flag.String("user", "", "the user to demand (none: no credentials asked)")
	password := flag.String("password", "", "the password to demand with -user")
	cert := flag.String("cert", "", "PEM certificate chain for -kind https")
	key := flag.String("key", "", "PEM private key for -kind https")
	mapTo := flag.String("map-to", "", "dial every target at this IP instead of resolving its host")
	flag.Parse()

	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		if *mapTo != "" {
			if _, port, err := net.SplitHostPort(addr); err == nil {
				addr = net.JoinHostPort(*mapTo, port)
			}
		}
		var d net.Dialer
		return d.DialContext(ctx, network, addr)
	}

	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		log.Fatalf("testproxy: %v", err)
	}
	switch *kind {
	case "http", "https":
		if *kind == "https" {
			pair, err := tls.LoadX509KeyPair(*cert, *key)
			if err != nil {
				log.Fatalf("testproxy: -cert and -key: %v", err)
			}
			// HTTP/1.1 only: no "h2" offered, as a CONNECT proxy is spoken to
			ln = tls.NewListener(ln, &tls.Config{Certificates: []tls.Certificate{pair}, NextProtos: []string{"http/1.1"}})
		}
		go serveHTTP(ln, *user, *password, dial)
	case "socks5":
		go serveSOCKS5(ln, *user, *password, *mapTo)
	default:
		log.Fatalf("testproxy: -kind %q is not http, https or socks5", *kind)
	}
	say("listening %s %s", *kind, ln.Addr())
	// stops when the parent closes our standard input (or dies)
	_, _ = io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// credentials checks a Proxy-Authorization header; ok is true when none is demanded.
func credentials(header, user, password string) (string, bool) {
	if user == "" {
		return "", true
	}
	encoded, found := strings.CutPrefix(header, "Basic ")
	if !found {
		return "", false
	}
	decoded, err := base64.StdEncoding.DecodeString(encoded)
	if err != nil {
		return "", false
	}
	name, pass, _ := strings.Cut(string(decoded), ":")
	if subtle.ConstantTimeCompare([]byte(name), []byte(user)) != 1 ||
		subtle.ConstantTimeCompare([]byte(pass), []byte(password)) != 1 {
		return "", false
	}
	return name, true
}

func reason(header string) string {
	if header == "" {
		return "no-credentials"
	}
	return "wrong-credentials"
}

func serveHTTP(ln net.Listener, user, password string, dial func(context.Context, string, string) (net.Conn, error)) {
	proxy := goproxy.NewProxyHttpServer()
	proxy.Logger = log.New(io.Discard, "", 0)
	proxy.ConnectDial = func(network, addr string) (net.Conn, error) {
		return dial(context.Background(), network, addr)
	}
	proxy.Tr = &http.Transport{Proxy: nil, DialContext: dial}
	proxy.OnRequest().HandleConnectFunc(func(host string, ctx *goproxy.ProxyCtx) (*goproxy.ConnectAction, string) {
		header := ctx.Req.Header.Get("Proxy-Authorization")
		name, ok := credentials(header, user, password)
		if !ok {
			say("refused reason=%s target=%s", reason(header), host)
			return &goproxy.ConnectAction{Action: goproxy.ConnectProxyAuthHijack,
				Hijack: func(req *http.Request, client net.Conn, ctx *goproxy.ProxyCtx) {
					// the status line is written already
					_, _ = io.WriteString(client, "Proxy-Authenticate: Basic realm=\"testproxy\"\r\n"+
						"Content-Length: 0\r\nConnection: close\r\n\r\n")
					_ = client.Close()
				}}, host
		}
		say("connect user=%s target=%s", name, host)
		return goproxy.OkConnect, host
	})
	proxy.OnRequest().DoFunc(func(req *http.Request, ctx *goproxy.ProxyCtx) (*http.Request, *http.Response) {
		header := req.Header.Get("Proxy-Authorization")
		name, ok := credentials(header, user, password)
		req.Header.Del("Proxy-Authorization")
		if !ok {
			say("refused reason=%s target=%s", reason(header), req.URL.Host)
			response := goproxy.NewResponse(req, goproxy.ContentTypeText, http.StatusProxyAuthRequired, "proxy credentials required\n")
			response.Header.Set("Proxy-Authenticate", "Basic realm=\"testproxy\"")
			return req, response
		}
		say("request user=%s url=%s", name, req.URL)
		return req, nil
	})
	server := &http.Server{Handler: proxy, ErrorLog: log.New(io.Discard, "", 0)}
	_ = server.Serve(ln)
}

// rules lets every authenticated CONNECT through and reports it.
type rules struct{}

func (rules) Allow(ctx context.Context, req *socks5.Request) (context.Context, bool) {
	name := ""
	if req.AuthContext != nil {
		name = req.AuthContext.Payload["Username"]
	}
	target := req.DestAddr.Address()
	if req.DestAddr.FQDN != "" {
		target = net.JoinHostPort(req.DestAddr.FQDN, fmt.Sprint(req.DestAddr.Port))
	}
	if req.Command != socks5.ConnectCommand {
		say("refused reason=not-connect target=%s", target)
		return ctx, false
	}
	say("connect user=%s target=%s", name, target)
	return ctx, true
}

// resolver maps every name to -map-to's address, or resolves it.
type resolver struct{ mapTo net.IP }

func (r resolver) Resolve(ctx context.Context, name string) (context.Context, net.IP, error) {
	if r.mapTo != nil {
		return ctx, r.mapTo, nil
	}
	return socks5.DNSResolver{}.Resolve(ctx, name)
}

// checked reports refused credentials (the library only answers them).
type checked struct{ user, password string }

func (c checked) Valid(user, password string) bool {
	if subtle.ConstantTimeCompare([]byte(user), []byte(c.user)) == 1 &&
		subtle.ConstantTimeCompare([]byte(password), []byte(c.password)) == 1 {
		return true
	}
	say("refused reason=wrong-credentials target=")
	return false
}

func serveSOCKS5(ln net.Listener, user, password, mapTo string) {
	config := &socks5.Config{
		Rules:    rules{},
		Resolver: resolver{mapTo: net.ParseIP(mapTo)},
		Logger:   log.New(io.Discard, "", 0),
	}
	if user != "" {
		config.AuthMethods = []socks5.Authenticator{socks5.UserPassAuthenticator{Credentials: checked{user, password}}}
	}
	if mapTo != "" {
		ip := net.ParseIP(mapTo)
		config.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			_, port, _ := net.SplitHostPort(addr)
			var d net.Dialer
			return d.DialContext(ctx, network, net.JoinHostPort(ip.String(), port))
		}
	}
	server, err := socks5.New(config)
	if err != nil {
		log.Fatalf("testproxy: %v", err)
	}
	_ = server.Serve(ln)
}
