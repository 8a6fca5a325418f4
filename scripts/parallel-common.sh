# Shared by parallel-match.sh, parallel-datagen.sh and parallel-book.sh (sourced, not
# run): checks the arguments and GNU parallel, and sets logins (the login file's absolute
# path), shards, dir and vato (absolute when given as a path); the remaining arguments are
# the job's.
# Leaves the caller in DIR.
if [ $# -lt 4 ]; then
    echo "usage: $(basename "$0") LOGINS SHARDS DIR ARGUMENTS..." >&2
    exit 2
fi
if ! command -v parallel >/dev/null 2>&1; then
    echo "$(basename "$0"): GNU parallel is missing (Debian: apt-get install parallel)" >&2
    exit 1
fi
logins=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
shards=$2
dir=$3
vato=${VATO:-vato}
case $vato in
*/*) vato=$(cd "$(dirname "$vato")" && pwd)/$(basename "$vato") ;;
esac
mkdir -p "$dir"
cd "$dir"

# The numbers K of the shards whose finished file, FORMAT with K for %s (`part-%s.book`),
# is not in DIR yet, one a line: the shards still to run.
pending_shards() {
    k=1
    while [ "$k" -le "$shards" ]; do
        # shellcheck disable=SC2059
        [ -e "$(printf "$1" "$k")" ] || echo "$k"
        k=$((k + 1))
    done
}
