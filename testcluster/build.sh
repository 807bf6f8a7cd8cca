#!/usr/bin/env bash
# Builds kube-apiserver, etcd and kubectl from their Go modules into the layout that
# io.fabric8:kube-api-test reads: ~/.kubeapitest/k8s/<version>-linux-amd64/{kube-apiserver,etcd,kubectl}.
# Needs Go and nothing else: kubectl is built from the same k8s.io/kubernetes release as kube-apiserver
# (kube-api-test requires the file and runs it to configure and probe the server).
# Also builds testproxy (proxy/, a Go module of its own: an HTTP/HTTPS CONNECT proxy and a SOCKS5
# server on loopback for the proxy tests) into ~/.kubeapitest/listwatch-testproxy/testproxy.
# Idempotent: each step does nothing when its binaries are there (testproxy is rebuilt when its
# sources are newer than it). Go's module and build caches are reused.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="${KUBEAPITEST_DIR:-$HOME/.kubeapitest}"
need_go() {
  command -v go >/dev/null || { echo "testcluster: Go is needed to build $1 (https://go.dev/doc/install)" >&2; exit 1; }
}

# testproxy: seconds to build, so it never waits for kube-apiserver's check below
proxy="$root/listwatch-testproxy/testproxy"
stale=""
if [[ -x "$proxy" ]]; then
  stale="$(find "$here/proxy" -maxdepth 1 -type f \( -name '*.go' -o -name go.mod -o -name go.sum \) -newer "$proxy" | head -1)"
fi
if [[ ! -x "$proxy" || -n "$stale" ]]; then
  need_go testproxy
  mkdir -p "$(dirname "$proxy")"
  (cd "$here/proxy" && CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$proxy.tmp" .)
  mv "$proxy.tmp" "$proxy"
  echo "testcluster: built testproxy into $proxy"
else
  echo "testcluster: testproxy is in $proxy"
fi

version="$(sed -n 's/^\tk8s.io\/kubernetes v\(.*\)$/\1/p' "$here/go.mod" | head -1)"
: "${version:?cannot read the k8s.io/kubernetes version from go.mod}"
dir="$root/k8s/${version}-linux-amd64"
if [[ -x "$dir/kube-apiserver" && -x "$dir/etcd" && -x "$dir/kubectl" ]]; then
  echo "testcluster: kube-apiserver $version, etcd and kubectl are in $dir"
  exit 0
fi
need_go "kube-apiserver, etcd and kubectl"
mkdir -p "$dir"
tmp="$(mktemp -d "$dir/.build.XXXX")"
trap 'rm -rf "$tmp"' EXIT
major="${version%%.*}"; minor="${version#*.}"; minor="${minor%%.*}"
date="$(date -u +%Y-%m-%dT%H:%M:%SZ)"
ld="-s -w"
for pkg in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
  ld+=" -X $pkg.gitVersion=v$version -X $pkg.gitMajor=$major -X $pkg.gitMinor=$minor"
  ld+=" -X $pkg.gitCommit=v$version -X $pkg.gitTreeState=clean -X $pkg.buildDate=$date"
done
cd "$here"
start=$SECONDS
echo "testcluster: building kube-apiserver v$version, kubectl v$version and etcd (the first build takes several minutes)"
CGO_ENABLED=0 go build -trimpath -ldflags "$ld" -o "$tmp/" ./cmd/kube-apiserver ./cmd/kubectl
CGO_ENABLED=0 go build -trimpath -ldflags "-s -w" -o "$tmp/etcd" ./cmd/etcd
mv "$tmp/kube-apiserver" "$tmp/etcd" "$tmp/kubectl" "$dir/"
echo "testcluster: built in $((SECONDS - start)) s into $dir"
