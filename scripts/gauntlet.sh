#!/usr/bin/env bash
# Gauntlet: the first engine plays each of the others in colour-swapped pairs from the
# default openings; the standings show its Elo against each.
set -euo pipefail

usage() {
    cat <<USAGE
Usage: scripts/gauntlet.sh ENGINE OPPONENT... [-- vato match options...]

Plays the engine binary ENGINE (which also runs the match) against every OPPONENT binary
with 'vato match --tournament gauntlet'. Engines are named after their files; repeated
names get a number.

Settings from the environment (defaults in brackets):
  TC           time control, seconds + increment        [10+0.1]
  GAMES        games against each opponent              [100]
  CONCURRENCY  games played at once                     [2]
  OPENINGS     opening file                             [scripts/openings.txt]
  PGN          game records (appended)                  [gauntlet.pgn]

Example:
  scripts/gauntlet.sh target/release/vato old/vato-0.1 old/vato-0.2 -- --log-dir logs
USAGE
}

if [[ $# -ge 1 && ( $1 == -h || $1 == --help ) ]]; then
    usage
    exit 0
fi
engines=()
while [[ $# -gt 0 && $1 != -- ]]; do
    engines+=("$1")
    shift
done
if [[ $# -gt 0 ]]; then
    shift # the --
fi
if [[ ${#engines[@]} -lt 2 ]]; then
    usage >&2
    exit 2
fi
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)

taken() {
    local candidate=$1 name
    for name in ${names[@]+"${names[@]}"}; do
        [[ $name == "$candidate" ]] && return 0
    done
    return 1
}
names=()
arguments=()
for binary in "${engines[@]}"; do
    if [[ ! -x $binary ]]; then
        echo "gauntlet.sh: '$binary' is not an executable file" >&2
        exit 2
    fi
    name=$(basename "$binary")
    if taken "$name"; then
        number=2
        while taken "$name-$number"; do
            number=$((number + 1))
        done
        name=$name-$number
    fi
    names+=("$name")
    arguments+=(--engine "name=$name" "cmd=$binary")
done

exec "${engines[0]}" match \
    "${arguments[@]}" \
    --tournament gauntlet \
    --each "tc=${TC:-10+0.1}" \
    --games "${GAMES:-100}" \
    --concurrency "${CONCURRENCY:-2}" \
    --openings "${OPENINGS:-$here/openings.txt}" \
    --pgn "${PGN:-gauntlet.pgn}" \
    "$@"
