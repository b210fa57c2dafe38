#!/usr/bin/env bash
# The pinning tests of the library bug set: for every patch of
# bugs/etcdraft/ that re-introduces a bug fixed upstream, the test that the
# fix added or changed (named on the patch's "# pinning test: PKG REGEX"
# lines) is run from go.etcd.io/raft/v3 v3.7.0's own test files, in a copy
# of the module from the module cache: it must pass on the copy as it is
# and fail once the patch is applied. That is the evidence that a patch
# puts back the bug the upstream commit fixed, and not some other one.
#
#   scripts/bugset-pinning.sh [BUG...]   (default: every patch with an "# upstream:" line)
#
# Environment:
#   UPSTREAM  a git directory of etcd-io/raft's history (a bare clone will
#             do). When set, each patch's upstream commit must exist there,
#             and its subject is printed beside the result.
#
# A patch that names an upstream commit must say how it is pinned: one or
# more "# pinning test:" lines, or "# pinning test: none: WHY".
#
# Exit status: 0 when every pinning test passes without its patch and fails
# with it, 1 otherwise, 2 on a usage error. The tests' own dependencies
# (testify, datadriven) come through the Go module proxy on first use.
set -euo pipefail
cd "$(dirname "$0")/.."

command -v patch > /dev/null || { echo "$0: patch(1) is not installed (Debian package patch)" >&2; exit 1; }
mod=$(go list -m -f '{{.Dir}}' go.etcd.io/raft/v3)
version=$(go list -m -f '{{.Version}}' go.etcd.io/raft/v3)
[[ -d $mod ]] || { echo "$0: go.etcd.io/raft/v3 is not in the module cache (run go mod download)" >&2; exit 1; }
[[ $version == v3.7.0 ]] || { echo "$0: the patches are against go.etcd.io/raft/v3 v3.7.0, go.mod has $version" >&2; exit 1; }
upstream=${UPSTREAM:-}
if [[ -n $upstream ]] && ! git -C "$upstream" rev-parse --git-dir > /dev/null 2>&1; then
  echo "$0: UPSTREAM=$upstream is not a git directory" >&2; exit 2
fi

bugs=("$@")
if [[ ${#bugs[@]} -eq 0 ]]; then
  for p in bugs/etcdraft/*.patch; do
    if grep -q '^# upstream: ' "$p"; then bugs+=("$(basename "$p" .patch)"); fi
  done
fi
for b in "${bugs[@]}"; do
  [[ -f bugs/etcdraft/$b.patch ]] || { echo "$0: no patch bugs/etcdraft/$b.patch" >&2; exit 2; }
done

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# fresh DIR: a writable copy of the module at DIR.
fresh() {
  rm -rf "$1"
  cp -r "$mod" "$1"
  chmod -R u+w "$1"
}

# runtest DIR PKG REGEX LOG: runs the test; prints pass, fail (a test
# failed or panicked) or error (it did not build, or go test failed
# otherwise).
runtest() {
  local code=0
  (cd "$1" && go test -count=1 -run "$3" "$2") > "$4" 2>&1 || code=$?
  if [[ $code == 0 ]]; then
    if grep -q '^ok' "$4" && ! grep -q 'no tests to run' "$4"; then echo pass; else echo error; fi
  elif grep -qE '^(--- FAIL|panic: )' "$4"; then
    echo fail
  else
    echo error
  fi
}

status=0
echo "| bug | upstream | pinning test | without the patch | with the patch |"
echo "|---|---|---|---|---|"
for b in "${bugs[@]}"; do
  p=bugs/etcdraft/$b.patch
  url=$(sed -n 's/^# upstream: //p' "$p" | head -1)
  commit=${url##*/}
  short=${commit:0:7}
  if [[ -z $url ]]; then
    echo "| $b | none | | | (no \"# upstream:\" line) |"
    continue
  fi
  if [[ -n $upstream ]]; then
    if subject=$(git -C "$upstream" log -1 --format=%s "$commit" 2>/dev/null); then
      short="$short ($subject)"
    else
      echo "| $b | $short | | | NOT IN UPSTREAM: $commit is not in $upstream |"
      status=1
      continue
    fi
  fi
  mapfile -t pins < <(sed -n 's/^# pinning test: //p' "$p")
  if [[ ${#pins[@]} -eq 0 ]]; then
    echo "| $b | $short | MISSING: no \"# pinning test:\" line | | |"
    status=1
    continue
  fi
  for pin in "${pins[@]}"; do
    if [[ $pin == none:* ]]; then
      echo "| $b | $short | none | | ${pin#none: } |"
      continue
    fi
    read -r pkg regex <<<"$pin"
    d=$tmp/$b
    fresh "$d"
    before=$(runtest "$d" "$pkg" "$regex" "$tmp/$b.before.log")
    if ! patch -d "$d" -p1 --quiet --forward --batch --fuzz=0 < "$p" > "$tmp/$b.patch.log" 2>&1; then
      echo "| $b | $short | \`$pkg $regex\` | $before | PATCH DOES NOT APPLY |"
      status=1
      continue
    fi
    after=$(runtest "$d" "$pkg" "$regex" "$tmp/$b.after.log")
    why=$(grep -m1 -E '^(--- FAIL|panic: )' "$tmp/$b.after.log" || true)
    echo "| $b | $short | \`$pkg $regex\` | $before | $after${why:+ (${why})} |"
    if [[ $before != pass || $after != fail ]]; then
      status=1
      for f in before after; do
        echo "$0: $b, $f the patch:" >&2
        tail -n 20 "$tmp/$b.$f.log" >&2
      done
    fi
  done
done
exit $status
