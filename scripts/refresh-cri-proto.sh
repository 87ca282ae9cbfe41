#!/usr/bin/env bash
# Refresh proto/ from Debian's packages: the CRI api.proto (runtime.v1) from
# golang-github-kubernetes-cri-api-dev (Debian 13, trixie) and the gogo.proto it imports from
# golang-github-gogo-protobuf-dev. Files are copied unmodified; then the TypeScript types and the
# embedded descriptor are regenerated (scripts/gen-cri.ts). The machine's apt sources are not
# touched: trixie is read through a private apt configuration under $WORK.
set -euo pipefail
cd "$(dirname "$0")/.."
WORK=${WORK:-/var/cache/nodeagent/trixie}
mkdir -p "$WORK/lists/partial" "$WORK/debs"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] http://deb.debian.org/debian trixie main" >"$WORK/sources.list"
APT=(-o "Dir::Etc::SourceList=$WORK/sources.list" -o Dir::Etc::SourceParts=/dev/null
     -o "Dir::State::Lists=$WORK/lists" -o APT::Get::List-Cleanup=0 -o APT::Sandbox::User=root)
apt-get "${APT[@]}" update -qq
rm -rf "$WORK/debs"/* "$WORK/x"
(cd "$WORK/debs" && apt-get "${APT[@]}" download -qq golang-github-kubernetes-cri-api-dev golang-github-gogo-protobuf-dev)
for d in "$WORK"/debs/*.deb; do dpkg-deb -x "$d" "$WORK/x"; done
src="$WORK/x/usr/share/gocode/src"
install -D -m 0644 "$src/k8s.io/cri-api/pkg/apis/runtime/v1/api.proto" proto/api.proto
install -D -m 0644 "$src/github.com/gogo/protobuf/gogoproto/gogo.proto" proto/github.com/gogo/protobuf/gogoproto/gogo.proto
ver=$(dpkg-deb -f "$WORK"/debs/golang-github-kubernetes-cri-api-dev_*.deb Version)
echo "golang-github-kubernetes-cri-api-dev $ver (Debian trixie)" >proto/SOURCE
echo "proto/api.proto from cri-api $ver"
exec node_modules/.bin/bun scripts/gen-cri.ts
