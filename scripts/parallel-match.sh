#!/bin/sh
# A match spread over several machines with GNU parallel: SHARDS shards of one schedule
# (`vato match --shard K/SHARDS`), run on the hosts of an ssh login file, their records
# copied back to DIR and merged (`vato match --summary`) into the result the unsharded
# match would have given.
#
#   scripts/parallel-match.sh LOGINS SHARDS DIR MATCH-ARGUMENTS...
#
# LOGINS is a GNU parallel --sshloginfile: one host per line, `:` for this machine, with
# an optional job count (`2/:`, `4/user@box`). Every host needs Vato and the engines'
# commands at the same paths (VATO names Vato's; default `vato` on the PATH). Each shard
# is one job: give the match `--concurrency 1` and let the login file say how many jobs a
# host runs. MATCH-ARGUMENTS must fix the games (--games/--rounds) and the seed (--seed).
# DIR/shard-K.pgn and DIR/shard-K.log are each shard's records and output; a shard whose
# records are complete is not played again, so running the same command again resumes.
# SPRT="elo0=0 elo1=10" adds the test to the merged summary.
set -eu
. "$(dirname "$0")/parallel-common.sh"
shift 3

pending=""
files=""
k=1
while [ "$k" -le "$shards" ]; do
    [ -e "shard-$k.pgn" ] || pending="$pending $k"
    files="$files shard-$k.pgn"
    k=$((k + 1))
done
if [ -n "$pending" ]; then
    # -q quotes every word, so the match arguments reach each host intact. A shard writes
    # its records to a temporary name and renames them when it has played all its games.
    # shellcheck disable=SC2016
    printf '%s\n' $pending | parallel -q --sshloginfile "$logins" \
        --return 'shard-{}.pgn' --return 'shard-{}.log' --cleanup --halt now,fail=1 \
        sh -c 'k=$1 n=$2 vato=$3; shift 3
            rm -f "shard-$k.pgn.partial"
            "$vato" match "$@" --shard "$k/$n" --pgn "shard-$k.pgn.partial" \
                >"shard-$k.log" 2>&1 || { tail -n 5 "shard-$k.log" >&2; exit 1; }
            mv "shard-$k.pgn.partial" "shard-$k.pgn"' \
        sh {} "$shards" "$vato" "$@"
fi
# shellcheck disable=SC2086
"$vato" match --summary $files ${SPRT:+--sprt $SPRT}
