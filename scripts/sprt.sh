#!/usr/bin/env bash
# SPRT of a new build against a base build: colour-swapped game pairs from the default
# openings until the test accepts H0 (no gain of ELO1) or H1 (a gain of at least ELO1).
set -euo pipefail

usage() {
    cat <<USAGE
Usage: scripts/sprt.sh NEW BASE [vato match options...]

Plays the engine binary NEW (which also runs the match) against BASE with
'vato match --sprt' until a bound is crossed, and prints the verdict.

Settings from the environment (defaults in brackets):
  TC           time control, seconds + increment        [10+0.1]
  HASH         hash size in MiB for both engines        [16]
  CONCURRENCY  games played at once                     [2]
  ELO0 ELO1    the hypotheses, logistic Elo             [0 5]
  ALPHA BETA   the error rates                          [0.05 0.05]
  OPENINGS     opening file                             [scripts/openings.txt]
  PGN          game records (appended)                  [sprt.pgn]
  MAX_GAMES    stop after this many games if undecided  [unlimited]

Example:
  scripts/sprt.sh target/release/vato ../base/target/release/vato
  TC=5+0.05 ELO1=10 scripts/sprt.sh new/vato base/vato --log-dir logs
USAGE
}

if [[ $# -ge 1 && ( $1 == -h || $1 == --help ) ]]; then
    usage
    exit 0
fi
if [[ $# -lt 2 ]]; then
    usage >&2
    exit 2
fi
new=$1
base=$2
shift 2
for binary in "$new" "$base"; do
    if [[ ! -x $binary ]]; then
        echo "sprt.sh: '$binary' is not an executable file" >&2
        exit 2
    fi
done
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

limit=()
if [[ -n ${MAX_GAMES:-} ]]; then
    limit=(--games "$MAX_GAMES")
fi

exec "$new" match \
    --engine name=new "cmd=$new" \
    --engine name=base "cmd=$base" \
    --each "tc=${TC:-10+0.1}" "option.Hash=${HASH:-16}" \
    --concurrency "${CONCURRENCY:-2}" \
    --openings "${OPENINGS:-$here/openings.txt}" --openings-order random \
    --sprt "elo0=${ELO0:-0}" "elo1=${ELO1:-5}" "alpha=${ALPHA:-0.05}" "beta=${BETA:-0.05}" \
    --pgn "${PGN:-sprt.pgn}" \
    ${limit[@]+"${limit[@]}"} \
    "$@"
