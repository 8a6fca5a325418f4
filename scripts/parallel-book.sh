#!/bin/sh
# An opening book built on several machines with GNU parallel: SHARDS shards of one build
# (`vato book build --shard K/SHARDS`, each expanding every SHARDS-th of the root's turns),
# each on a host of an ssh login file, copied back to DIR as part-K.book with its journal,
# then joined into DIR/book.book by `vato book merge`. The merged book equals the book of
# the unsharded build (when no --positions limit cuts it short).
#
#   scripts/parallel-book.sh LOGINS SHARDS DIR BUILD-ARGUMENTS...
#
# LOGINS is a GNU parallel --sshloginfile (`:` for this machine, `2/:` for two jobs here,
# `user@box`); every host needs Vato at the same path (VATO, default `vato` on the PATH).
# BUILD-ARGUMENTS are those of `vato book build` except --out and --shard, for example
# `--depth 11 --lines 4 --margin 30 --plies 10`. Finished parts are kept, so running the
# same command again resumes.
set -eu
. "$(dirname "$0")/parallel-common.sh"
shift 3

pending=$(pending_shards 'part-%s.book')
if [ -n "$pending" ]; then
    # A build writes part-K.book.partial and renames it when complete.
    # shellcheck disable=SC2016
    printf '%s\n' $pending | parallel -q --sshloginfile "$logins" \
        --return 'part-{}.book' --return 'part-{}.book.journal' --return 'part-{}.log' \
        --cleanup --halt now,fail=1 \
        sh -c 'k=$1 n=$2 vato=$3; shift 3
            "$vato" book build "$@" --shard "$k/$n" --out "part-$k.book" \
                >"part-$k.log" 2>&1 || { tail -n 5 "part-$k.log" >&2; exit 1; }' \
        sh {} "$shards" "$vato" "$@"
fi
# shellcheck disable=SC2046
"$vato" book merge book.book $(seq -f 'part-%g.book' 1 "$shards")
