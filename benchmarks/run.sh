#!/usr/bin/env bash
# Builds the benchmark harness (and the library it measures, from this checkout; nothing is installed)
# and runs it: benchmarks/run.sh [all|throughput,sync,latency,requests,startup|metadata|etcd|bigcache|controller|shards|nssync] [key=value...]
# See benchmarks/README.md.
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${SKIP_BUILD:-}" != "1" ]]; then
  ./mvnw -q -Pbenchmarks -DskipTests package \
    -pl benchmarks/common,benchmarks/listwatch-runner,benchmarks/apache-runner,benchmarks/fabric8-runner,benchmarks/clientjava-runner,benchmarks/driver -am
fi
D=benchmarks/driver/target
exec java -Xmx2g -cp "$D/classes:$(cat $D/classpath.txt)" dev.listwatch.bench.Driver "${@:-all}" home=benchmarks
