#!/usr/bin/env bash
# Quick self-play smoke test: a few fast games of Vato against itself, every record read
# back and replayed through the rules by the summary.
set -euo pipefail

usage() {
    cat <<USAGE
Usage: scripts/smoke.sh [VATO] [vato match options...]

Plays GAMES games (default 8) of VATO (default target/release/vato) at depth 2 against
itself at depth 1 from the default openings, then prints the summary of the records.
Fails if the match or the summary fails.
USAGE
}

if [[ $# -ge 1 && ( $1 == -h || $1 == --help ) ]]; then
    usage
    exit 0
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
vato=$here/../target/release/vato
if [[ $# -ge 1 && $1 != -* ]]; then
    vato=$1
    shift
fi
if [[ ! -x $vato ]]; then
    echo "smoke.sh: '$vato' is not an executable file (build it with: cargo build --release)" >&2
    exit 2
fi

records=$(mktemp "${TMPDIR:-/tmp}/vato-smoke.XXXXXX")
trap 'rm -f "$records"' EXIT

"$vato" match \
    --engine name=depth2 "cmd=$vato" depth=2 \
    --engine name=depth1 "cmd=$vato" depth=1 \
    --games "${GAMES:-8}" \
    --concurrency "${CONCURRENCY:-2}" \
    --openings "$here/openings.txt" \
    --report-every 0 \
    --pgn "$records" \
    "$@"
echo
"$vato" match --summary "$records"
