#!/usr/bin/env bash
# The campaign on Fanoron-Tsivy's opening (docs/campaign.md): the ladder's positions
# (scripts/ladder.txt) solved one at a time, each run resumable, every result kept in
# the proof store, so that the work goes on across sessions and machines.
#
#   scripts/campaign.sh status [options] [names or prefixes...]
#       For each position chosen: what the proof store already proves (a value read in
#       0 nodes) or `open`, and the store's size.
#
#   scripts/campaign.sh jobs [options] [names or prefixes...]
#       One `vato solve` command line per open position, for a queue of one's own:
#       `scripts/campaign.sh jobs | parallel -j 4`, or a Slurm array that runs line
#       $SLURM_ARRAY_TASK_ID. Each job keeps a checkpoint and a proof in the campaign
#       folder; run again after a stop, it goes on from its checkpoint.
#
#   scripts/campaign.sh seed [options] [proof files...]
#       Adds the proofs committed under proofs/tsivy/ (or the files given) to the proof
#       store, each checked on the way: a store lost with its machine comes back from
#       them. Run it first on a new machine; it adds nothing when the store has them.
#
#   scripts/campaign.sh compact [--store DIR]
#       Merges the proof store's segments into one (`vato solve --compact-store`): each
#       run adds a segment, and every lookup asks each segment. Safe while runs go on.
#
#   scripts/campaign.sh adopt [options] [names or prefixes...]
#       Copies the proofs the runs wrote (NAME.proof in the campaign folder) of the
#       chosen positions into proofs/tsivy/ (or --into DIR), each checked first over
#       the tables the campaign rests on, and prints the row of each for proofs/README.md. Committed, a result outlives
#       the machine's data folder (`seed` brings it back).
#
#   scripts/campaign.sh run [options] [names or prefixes...]
#       Runs the jobs here, one after the other, and appends a row for each to
#       `log.tsv` in the campaign folder. A job that ends (proved, or out of time)
#       leaves no checkpoint, unless --keep: a proof table of GiBs for each position
#       would fill the disk. A job stopped by a kill keeps its checkpoint (and the
#       defence it was writing) and goes on from it.
#
# Options: --time S (600), --memory MB (6144 for each of the two questions),
# --strategy-memory MB (`vato solve`'s: for writing a defence down, as much as --memory
# unless given),
# --threads N (2), --ask SIDE (none: both questions; `black` asks only whether Black
# wins, on one thread, so that two jobs share two cores, and passes over a rung where
# the store answers that question), --store DIR (the solver's default store),
# --tablebase-path DIR (the solver's default tables), --tablebase-stones N (7: the
# store's results then rest on the 7-stone set alone, which every machine of the
# campaign has, even where some 8-stone pairs are built), --guide-stones N (none: tables of up to N stones that guide
# the search and the strategies without the proofs resting on them; 8 where the 8-stone
# pairs are built), --data DIR (the campaign folder: $VATO_CAMPAIGN, else
# vato/campaign in the data folder), --list FILE (scripts/ladder.txt), --keep (`run`
# keeps the checkpoints of a job that ends open, a GiB or more each, so that the next
# run goes on where it stopped, a defence half-written included), --exact (the names
# given are whole names, not prefixes: `line-2` is not `line-20`), --into DIR (where
# `adopt` copies the proofs: proofs/tsivy), --method M (dfpn: `vato solve --method`;
# with `exits` the defender must force its way into the tables, which only shows "does
# not win" and keeps its checkpoints apart, as NAME.exits.checkpoint), --forced (with
# another method: what the rung's exits run disproved, its checkpoint kept by --keep,
# are leaves of the search and the defence's first choices: `vato solve --forced-from`).
#
# The binary is $VATO, else target/release/vato under the repository root.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
vato="${VATO:-$root/target/release/vato}"
list="$root/scripts/ladder.txt"
data="${VATO_CAMPAIGN:-${XDG_DATA_HOME:-$HOME/.local/share}/vato/campaign}"
time_limit=600
memory=6144
strategy_memory=""
threads=2
method=dfpn
ask=""
store=""
tables=""
table_stones=7
guide_stones=""
keep=""
forced=""
exact=""
into="$root/proofs/tsivy"
select=()

# shellcheck source=scripts/lib/ladder-list.sh
source "$root/scripts/lib/ladder-list.sh"

die() {
    echo "campaign.sh: $*" >&2
    exit 1
}

parse() {
    while (($#)); do
        case "$1" in
        --time | --memory | --strategy-memory | --threads | --method | --ask | --store | --tablebase-path | --tablebase-stones | --guide-stones | --data | --list | --into)
            (($# >= 2)) || die "$1 needs a value"
            case "$1" in
            --time) time_limit="$2" ;;
            --memory) memory="$2" ;;
            --strategy-memory) strategy_memory="$2" ;;
            --threads) threads="$2" ;;
            --method) method="$2" ;;
            --ask) ask="$2" ;;
            --store) store="$2" ;;
            --tablebase-path) tables="$2" ;;
            --tablebase-stones) table_stones="$2" ;;
            --guide-stones) guide_stones="$2" ;;
            --data) data="$2" ;;
            --list) list="$2" ;;
            --into) into="$2" ;;
            esac
            shift 2
            ;;
        --keep)
            keep=1
            shift
            ;;
        --forced)
            forced=1
            shift
            ;;
        --exact)
            exact=1
            shift
            ;;
        --*) die "unknown option '$1'" ;;
        *)
            select+=("$1")
            shift
            ;;
        esac
    done
    [[ -f "$list" ]] || die "no list '$list' (scripts/ladder.sh generate)"
    [[ -x "$vato" ]] || die "no binary at '$vato' (cargo build --release, or set VATO)"
}

# The options every `vato solve` of the campaign shares.
shared_options() {
    local -n into=$1
    into=(--tablebase-stones "$table_stones")
    [[ -n "$store" ]] && into+=(--store "$store")
    [[ -n "$tables" ]] && into+=(--tablebase-path "$tables")
    return 0
}

# Prints `name<TAB>fen<TAB>turns` for each chosen position of the list.
chosen() {
    ladder_positions "$list" ${exact:+--exact} "${select[@]}"
}

# What the store proves about `fen`: win, draw or loss (for the side to move), or open.
stored_value() {
    local fen="$1" text
    local -a options
    shared_options options
    text="$("$vato" solve --fen "$fen" --stored "${options[@]}" 2>/dev/null </dev/null)" ||
        die "vato solve failed on '$fen'"
    local first="${text%%$'\n'*}"
    case "${first%% *}" in
    win | draw | loss) echo "${first%% *}" ;;
    *)
        # One side's result, for the side to move: `open (draw or better)`.
        case "$first" in
        *"holds only: "*)
            local held="${first#*holds only: }"
            echo "open (${held% for the side to move*})"
            ;;
        *) echo open ;;
        esac
        ;;
    esac
}

status() {
    local name fen _moves
    while IFS=$'\t' read -r name fen _moves; do
        printf '%s\t%s\n' "$name" "$(stored_value "$fen")"
    done < <(chosen)
    local dir="${store:-${VATO_PROOFS:-${XDG_DATA_HOME:-$HOME/.local/share}/vato/proofs}}"
    local segments=0 bytes=0
    if [[ -d "$dir" ]]; then
        segments="$(find "$dir" -maxdepth 1 -name '*.vps' | wc -l | tr -d ' ')"
        bytes="$(find "$dir" -maxdepth 1 -name '*.vps' -printf '%s\n' | awk '{ s += $1 } END { print s + 0 }')"
    fi
    printf 'store %s: %s segments, %s bytes\n' "$dir" "$segments" "$bytes"
}

# The checkpoint of the job for one position: a search of another method answers another
# question, so its table is kept apart.
checkpoint_of() {
    local name="$1"
    if [[ "$method" == dfpn ]]; then
        echo "$data/$name.checkpoint"
    else
        echo "$data/$name.$method.checkpoint"
    fi
}

# The command line of the job for one position, quoted for a shell.
job() {
    local name="$1" fen="$2"
    local -a options solve
    shared_options options
    solve=("$vato" solve --fen "$fen" --time "$time_limit" --memory "$memory"
        --threads "$threads" --method "$method" --checkpoint "$(checkpoint_of "$name")"
        --checkpoint-every 600 --proof "$data/$name.proof" --compact "${options[@]}")
    [[ -n "$guide_stones" ]] && solve+=(--guide-stones "$guide_stones")
    [[ -n "$strategy_memory" ]] && solve+=(--strategy-memory "$strategy_memory")
    [[ -n "$ask" ]] && solve+=(--ask "$ask")
    if [[ -n "$forced" && "$method" != exits ]]; then
        # The exits run's table, kept with --keep: `.second` when it asked the second
        # question, as --ask does for the side not to move.
        local exits="$data/$name.exits.checkpoint"
        if [[ -f "$exits.second" ]]; then
            solve+=(--forced-from "$exits.second")
        elif [[ -f "$exits" ]]; then
            solve+=(--forced-from "$exits")
        fi
    fi
    printf '%q ' "${solve[@]}"
    echo
}

# Whether `fen`, of which the store says `value` (see stored_value), needs a job: it is
# open, and the store does not answer the one question asked (--ask) already.
wanted() {
    local fen="$1" value="$2"
    [[ "$value" == open* ]] || return 1
    [[ -n "$ask" ]] || return 0
    # Does the side asked about move? (`w` or `b`, the position's second field.)
    local mover
    mover="$(awk '{ print $2 }' <<<"$fen")"
    case "$value" in
    "open (draw or worse)") [[ "${ask:0:1}" != "$mover" ]] ;;
    "open (draw or better)") [[ "${ask:0:1}" == "$mover" ]] ;;
    *) return 0 ;;
    esac
}

jobs() {
    # The jobs write their checkpoints and proofs there, wherever they run.
    mkdir -p "$data"
    local name fen _moves
    while IFS=$'\t' read -r name fen _moves; do
        wanted "$fen" "$(stored_value "$fen")" && job "$name" "$fen"
    done < <(chosen)
    return 0
}

run() {
    mkdir -p "$data"
    local log="$data/log.tsv"
    [[ -s "$log" ]] || printf 'finished\tname\tvalue\tnodes\tseconds\topen\n' >"$log"
    local name fen _moves
    while IFS=$'\t' read -r name fen _moves; do
        wanted "$fen" "$(stored_value "$fen")" || continue
        local text status=0
        text="$(eval "$(job "$name" "$fen")" 2>"$data/$name.err" </dev/null)" || status=$?
        local first="${text%%$'\n'*}"
        if [[ -z "$keep" ]]; then
            local checkpoint
            checkpoint="$(checkpoint_of "$name")"
            rm -f "$checkpoint"{,.defence,.second,.second.defence}
        fi
        [[ "$first" == *" nodes "* ]] || die "solve failed on $name (exit $status): $(head -c 300 "$data/$name.err")"
        local nodes seconds open
        nodes="$(sed -E 's/.* nodes ([0-9]+).*/\1/' <<<"$first")"
        seconds="$(sed -E 's/.* time ([0-9.]+).*/\1/' <<<"$first")"
        open="$(sed -n 's/^open: //p' <<<"$text" | head -n1)"
        printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$(date -u +%Y-%m-%dT%H:%M:%SZ)" "$name" \
            "${first%% *}" "$nodes" "$seconds" "$open" | tee -a "$log"
    done < <(chosen)
}

seed() {
    local -a options proofs
    shared_options options
    if ((${#select[@]})); then
        proofs=("${select[@]}")
    else
        proofs=("$root"/proofs/tsivy/*.proof)
        [[ -e "${proofs[0]}" ]] || die "no proofs in $root/proofs/tsivy"
    fi
    "$vato" solve --merge-store "${proofs[@]}" "${options[@]}" </dev/null
}

compact() {
    local -a options=()
    [[ -n "$store" ]] && options+=(--store "$store")
    "$vato" solve --compact-store "${options[@]}" </dev/null
}

# The README's words for a checked claim ("win for black" with White to move is a loss).
value_words() {
    case "$1" in
        "win for white" | "loss for black") echo "White wins" ;;
        "win for black" | "loss for white") echo "Black wins" ;;
        "draw for "*) echo "draw" ;;
        "draw or better for white") echo "White does not lose" ;;
        "draw or better for black") echo "Black does not lose" ;;
        *) echo "$1" ;;
    esac
}

# Whole numbers in the text with thousands separators, as the README writes them.
grouped() {
    sed -E ':again; s/(^|[^0-9.])([0-9]+)([0-9]{3})/\1\2,\3/; t again' <<<"$1"
}

adopt() {
    local -a options
    shared_options options
    local name fen _moves adopted=0
    while IFS=$'\t' read -r name fen _moves; do
        local proof="$data/$name.proof"
        [[ -f "$proof" ]] || continue
        local text
        text="$("$vato" solve --check "$proof" "${options[@]}" 2>&1 </dev/null)" ||
            die "$proof does not check: $text"
        # proof ok: CLAIM in FEN (N positions followed, T turns, tables up to 7 stones) time S
        local claim followed turns seconds bytes
        claim="$(sed -E 's/^proof ok: (.*) in [^ ]+ [wb] [0-9]+ [0-9]+ \(.*/\1/' <<<"$text")"
        followed="$(sed -E 's/.*\(([0-9 +]+) positions followed.*/\1/' <<<"$text")"
        turns="$(sed -E 's/.* followed, ([0-9 +]+) turns,.*/\1/' <<<"$text")"
        seconds="$(sed -E 's/.* time ([0-9.]+)$/\1/' <<<"$text")"
        bytes="$(wc -c <"$proof" | tr -d ' ')"
        mkdir -p "$into"
        cp "$proof" "$into/$name.proof.partial"
        mv "$into/$name.proof.partial" "$into/$name.proof"
        printf '| `%s` | `%s` | %s | %s | %s | %s | %s s |\n' \
            "$name" "$fen" "$(value_words "$claim")" "$(grouped "$turns")" \
            "$(grouped "$bytes")" "$(grouped "$followed")" "$seconds"
        adopted=$((adopted + 1))
    done < <(chosen)
    echo "$adopted proofs copied to $into (rows above for proofs/README.md)" >&2
}

usage() {
    echo "Usage: scripts/campaign.sh status|jobs|run|seed|compact|adopt [--time S] [--memory MB] [--strategy-memory MB] [--threads N] [--method M] [--store DIR] [--tablebase-path DIR] [--tablebase-stones N] [--guide-stones N] [--data DIR] [--list FILE] [--into DIR] [--keep] [--forced] [--exact] [names or prefixes...]"
}

action="${1:-}"
(($#)) && shift
case "$action" in
status | jobs | run | seed | compact | adopt)
    parse "$@"
    "$action"
    ;;
-h | --help)
    usage
    ;;
*)
    usage >&2
    exit 2
    ;;
esac
