#!/usr/bin/env bash
# Re-create the real-world MATLAB corpus described in README.md.
#
#   tests/corpus/fetch.sh [DEST]        (DEST defaults to /work/corpus)
#
# For every line `owner/name <commit> <count>` of repos.txt (next to this script) it
# clones https://github.com/owner/name, checks out <commit>, and copies that commit's
# `*.m` files (regular files only, paths kept) to DEST/owner+name/. It then checks that
# the number of files copied equals <count>. Needs git and network access to GitHub;
# nothing is written inside this repository.
set -euo pipefail

here=$(cd "$(dirname "$0")" && pwd)
dest=${1:-/work/corpus}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$dest"

bad=0
while read -r repo commit count; do
  [[ -z "$repo" || "$repo" == \#* ]] && continue
  name=${repo/\//+}
  clone="$work/$name"
  echo "== $repo @ $commit"
  # A blobless clone fetches file contents only for the commit checked out.
  git clone --quiet --filter=blob:none --no-checkout "https://github.com/$repo.git" "$clone"
  git -C "$clone" -c advice.detachedHead=false checkout --quiet "$commit"
  out="$dest/$name"
  rm -rf "$out"
  mkdir -p "$out"
  # Tracked regular files (mode 100644/100755) whose name ends in .m; no symlinks,
  # no submodules.
  git -C "$clone" ls-tree -r -z "$commit" |
    awk -v RS='\0' -v ORS='\0' -F'\t' '
      { split($1, m, " ") }
      (m[1] == "100644" || m[1] == "100755") && m[2] == "blob" && $2 ~ /\.m$/ { print $2 }' |
    (cd "$clone" && xargs -0 -r cp --parents -t "$out" --)
  got=$(find "$out" -type f -name '*.m' | wc -l)
  if [[ "$got" != "$count" ]]; then
    echo "   expected $count .m files, got $got" >&2
    bad=1
  fi
  rm -rf "$clone"
done < "$here/repos.txt"

total=$(find "$dest" -type f -name '*.m' | wc -l)
echo "corpus: $total .m files in $dest"
exit $bad
