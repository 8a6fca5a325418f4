# shellcheck shell=bash
# The ladder's list (scripts/ladder.txt), read by scripts/ladder.sh and
# scripts/campaign.sh: sourced, not run.

# Prints `name<TAB>position<TAB>turns` for each position of the list FILE whose name
# starts with one of the words given (every position when none is); after `--exact`,
# whose name is one of them (none when none is).
ladder_positions() {
    local file="$1" exact=""
    shift
    if [[ "${1:-}" == --exact ]]; then
        exact=1
        shift
        (($#)) || return 0 # no whole name given: none, not every position
    fi
    local name fen moves word hit
    while IFS=$'\t' read -r name fen moves; do
        [[ -z "$name" || "$name" == \#* ]] && continue
        if (($#)); then
            hit=""
            for word in "$@"; do
                if [[ -n "$exact" ]]; then
                    [[ "$name" == "$word" ]] && hit=1
                else
                    [[ "$name" == "$word"* ]] && hit=1
                fi
            done
            [[ -n "$hit" ]] || continue
        fi
        printf '%s\t%s\t%s\n' "$name" "$fen" "$moves"
    done <"$file"
}
