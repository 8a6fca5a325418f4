#!/bin/sh
# Self-play data generated on several machines with GNU parallel: SHARDS shards of one
# run (`vato datagen --shard K/SHARDS`), each on a host of an ssh login file, copied back
# to DIR as part-K.vdata. Together the parts hold exactly the records of the unsharded
# run; `vato train DIR/part-*.vdata` reads them all (or join them with `cat`).
#
#   scripts/parallel-datagen.sh LOGINS SHARDS DIR DATAGEN-ARGUMENTS...
#
# LOGINS is a GNU parallel --sshloginfile (`:` for this machine, `2/:` for two jobs
# here, `user@box`); every host needs Vato at the same path (VATO, default `vato` on the
# PATH). DATAGEN-ARGUMENTS are those of `vato datagen` except --output and --shard, for
# example `--games 100000 --depth 6 --seed 1`. Finished parts are kept, so running the
# same command again resumes.
set -eu
. "$(dirname "$0")/parallel-common.sh"
shift 3

pending=$(pending_shards 'part-%s.vdata')
if [ -n "$pending" ]; then
    # Datagen writes part-K.vdata.partial and renames it when complete.
    # shellcheck disable=SC2016
    printf '%s\n' $pending | parallel -q --sshloginfile "$logins" \
        --return 'part-{}.vdata' --return 'part-{}.log' --cleanup --halt now,fail=1 \
        sh -c 'k=$1 n=$2 vato=$3; shift 3
            "$vato" datagen "$@" --shard "$k/$n" --output "part-$k.vdata" \
                >"part-$k.log" 2>&1 || { tail -n 5 "part-$k.log" >&2; exit 1; }' \
        sh {} "$shards" "$vato" "$@"
fi
cat part-*.log | grep -h "games (" || true
