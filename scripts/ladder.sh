#!/usr/bin/env bash
# The ladder: a fixed list of positions of rising difficulty for the solver
# (docs/ladder.md).
#
#   scripts/ladder.sh generate [--out FILE]
#       Writes the list (default scripts/ladder.txt): Vato's own line from the start,
#       both sides `go depth 12` (one thread, no book, no endgame tables), after
#       40, 30, 24, 20, 16, 12, 8, 4 and 2 turns; the positions after each of White's
#       first turns; the positions after each first turn and each reply.
#
#   scripts/ladder.sh run [--time S] [--memory MB] [--threads N] [--method M]
#                         [--store DIR] [--list FILE] [--out FILE] [names or prefixes...]
#       Solves the positions chosen (all when none is named; a word picks the names it
#       starts) with `vato solve`, one at a time, and prints a Markdown table row for
#       each; with --out, also appends a TSV row for each to FILE. Without --store the
#       rungs are solved with no proof store (each from nothing); with it, each rung
#       reads and adds to the store in DIR, and the row says how many positions it
#       holds after the rung.
#
# The binary is $VATO, else target/release/vato under the repository root.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
vato="${VATO:-$root/target/release/vato}"
list="$root/scripts/ladder.txt"

# shellcheck source=scripts/lib/ladder-list.sh
source "$root/scripts/lib/ladder-list.sh"

die() {
    echo "ladder.sh: $*" >&2
    exit 1
}

need_vato() {
    [[ -x "$vato" ]] || die "no binary at '$vato' (cargo build --release, or set VATO)"
}

# The turns at which Vato's line is cut, and the longest line played.
line_cuts=(2 4 8 12 16 20 24 30 40)
line_max=40
depth=12

# ---------------------------------------------------------------- generate

# Sends one command line to the engine.
send() {
    printf '%s\n' "$1" >&"${ENGINE[1]}"
}

# Reads the engine's lines until one starts with $1; prints that line. `info` lines and
# the banner are skipped.
expect() {
    local line
    while IFS= read -r -t 600 line <&"${ENGINE[0]}"; do
        if [[ "$line" == "$1"* ]]; then
            printf '%s\n' "$line"
            return 0
        fi
    done
    die "the engine stopped or took too long waiting for '$1'"
}

# Reads the answer to a command that answers exactly one line (`fen`, `moves`,
# `status`), skipping `info` lines.
answer() {
    local line
    while IFS= read -r -t 600 line <&"${ENGINE[0]}"; do
        [[ "$line" == info* ]] && continue
        printf '%s\n' "$line"
        return 0
    done
    die "the engine stopped or took too long"
}

# Prints the position string after the turns given (from the start).
fen_after() {
    send "position startpos moves $*"
    send "fen"
    answer
}

generate() {
    local out="$list"
    while (($#)); do
        case "$1" in
        --out)
            out="$2"
            shift 2
            ;;
        *) die "generate: unknown argument '$1'" ;;
        esac
    done

    # VATO_TABLEBASES set to nothing means no tables; TablebasePath empty switches them
    # off as well, so the line does not depend on the tables this machine has.
    coproc ENGINE { VATO_TABLEBASES='' exec "$vato" 2>&1; }
    send "uci"
    expect "uciok" >/dev/null
    send "setoption name Threads value 1"
    send "setoption name Hash value 64"
    send "setoption name OwnBook value false"
    send "setoption name TablebasePath value"
    send "isready"
    expect "readyok" >/dev/null
    send "ucinewgame"

    # Vato's line: both sides `go depth 12` until the game ends or $line_max turns.
    local -a line=()
    local status best ended=""
    while ((${#line[@]} < line_max)); do
        if ((${#line[@]})); then
            send "position startpos moves ${line[*]}"
        else
            send "position startpos"
        fi
        send "status"
        status="$(answer)"
        if [[ "$status" != "status ongoing" ]]; then
            ended="${status#status }"
            break
        fi
        send "go depth $depth"
        best="$(expect "bestmove")"
        best="${best#bestmove }"
        best="${best%% *}"
        line+=("$best")
    done

    local tmp
    tmp="$(mktemp)"
    {
        echo "# The ladder (docs/ladder.md): name, position string, turns from the start."
        echo "# Generated $(date -u +%Y-%m-%d) by: scripts/ladder.sh generate"
        echo "# Vato's line: both sides 'go depth $depth', Threads 1, Hash 64, OwnBook false,"
        echo "# no endgame tables; $(git -C "$root" describe --always --dirty 2>/dev/null || echo unknown)."
        if [[ -n "$ended" ]]; then
            echo "# The line ended after ${#line[@]} turns ($ended): the cuts past it are left out."
        fi
        if ((${#line[@]} >= 2)); then
            echo "# line-2 is also one of the second-* positions (the same turns)."
        fi
        local n
        for n in "${line_cuts[@]}"; do
            ((n <= ${#line[@]})) || continue
            local moves="${line[*]:0:n}"
            printf 'line-%s\t%s\t%s\n' "$n" "$(fen_after "$moves")" "$moves"
        done

        local -a firsts seconds
        send "position startpos"
        send "moves"
        read -r -a firsts <<<"$(answer)"
        local t1 t2
        for t1 in "${firsts[@]}"; do
            printf 'first-%s\t%s\t%s\n' "$t1" "$(fen_after "$t1")" "$t1"
        done
        for t1 in "${firsts[@]}"; do
            send "position startpos moves $t1"
            send "moves"
            read -r -a seconds <<<"$(answer)"
            for t2 in "${seconds[@]}"; do
                printf 'second-%s-%s\t%s\t%s\n' "$t1" "$t2" "$(fen_after "$t1 $t2")" "$t1 $t2"
            done
        done
    } >"$tmp"
    send "quit"
    wait "$ENGINE_PID" 2>/dev/null || true
    mv "$tmp" "$out"
    echo "wrote $out: $(grep -vc '^#' "$out") positions; Vato's line: ${line[*]}" >&2
}

# ---------------------------------------------------------------- run

run() {
    local time=20 memory=2048 threads=1 method=dfpn out="" store=""
    local -a select=()
    while (($#)); do
        case "$1" in
        --time | --memory | --threads | --method | --store | --out | --list)
            (($# >= 2)) || die "run: $1 needs a value"
            case "$1" in
            --time) time="$2" ;;
            --memory) memory="$2" ;;
            --threads) threads="$2" ;;
            --method) method="$2" ;;
            --store) store="$2" ;;
            --out) out="$2" ;;
            --list) list="$2" ;;
            esac
            shift 2
            ;;
        --*) die "run: unknown option '$1'" ;;
        *)
            select+=("$1")
            shift
            ;;
        esac
    done
    [[ -f "$list" ]] || die "no list '$list' (scripts/ladder.sh generate)"

    local have_time=""
    [[ -x /usr/bin/time ]] && have_time=1
    work="$(mktemp -d)"
    trap 'rm -rf "$work"' EXIT

    if [[ -n "$out" && ! -s "$out" ]]; then
        printf 'name\tstones\tvalue\tbestmove\tnodes\tseconds\tpeak_rss_mb\tproof_bytes\tstore_positions\topen\tfen\n' >"$out"
    fi
    echo "| position | stones | value | nodes | time (s) | peak RSS (MB) | proof (bytes) | store (positions) |"
    echo "|---|---:|---|---:|---:|---:|---:|---:|"

    local name fen _moves
    while IFS=$'\t' read -r name fen _moves; do
        local board="${fen%% *}" side
        side="$(cut -d' ' -f2 <<<"$fen")"
        local stones="${board//[^WB]/}"
        stones="${#stones}"

        rm -f "$work/proof" "$work/rss"
        local -a cmd=("$vato" solve --fen "$fen" --time "$time" --memory "$memory"
            --threads "$threads" --method "$method" --proof "$work/proof")
        if [[ -n "$store" ]]; then cmd+=(--store "$store"); else cmd+=(--no-store); fi
        local text status=0
        if [[ -n "$have_time" ]]; then
            text="$(/usr/bin/time -f %M -o "$work/rss" "${cmd[@]}" 2>"$work/err")" || status=$?
        else
            text="$("${cmd[@]}" 2>"$work/err")" || status=$?
        fi
        local first open=""
        first="$(head -n1 <<<"$text")"
        open="$(grep '^open:' <<<"$text" | head -n1 || true)"
        if [[ "$first" != *" nodes "* ]]; then
            die "solve failed on $name (exit $status): $(head -c 300 "$work/err")"
        fi
        local word="${first%% *}"
        local nodes seconds best="-"
        nodes="$(sed -E 's/.* nodes ([0-9]+).*/\1/' <<<"$first")"
        seconds="$(sed -E 's/.* time ([0-9.]+).*/\1/' <<<"$first")"
        [[ "$first" == *bestmove* ]] && best="$(sed -E 's/.*bestmove ([^ ]+).*/\1/' <<<"$first")"
        local mover other value
        if [[ "$side" == w ]]; then mover=White other=Black; else mover=Black other=White; fi
        case "$word" in
        win) value="$mover wins" ;;
        loss) value="$other wins" ;;
        draw) value="draw" ;;
        *) value="unknown${open:+ (${open#open: })}" ;;
        esac
        local rss="-" proof="-"
        if [[ -s "$work/rss" ]]; then
            rss="$(tail -n1 "$work/rss")"
            rss="$(awk -v k="$rss" 'BEGIN { printf "%.0f", k / 1024 }')"
        fi
        if [[ "$word" != unknown ]]; then
            if [[ -f "$work/proof" ]]; then
                proof="$(wc -c <"$work/proof" | tr -d ' ')"
            elif grep -q 'no proof written' "$work/err"; then
                # The time limit also bounds writing the proof down.
                proof="not written (time ran out)"
            fi
        fi
        local held="-"
        held="$(sed -nE 's/^store .*: [0-9]+ positions added, ([0-9]+) in all$/\1/p' <<<"$text")"
        [[ -n "$held" ]] || held="-"
        echo "| $name | $stones | $value | $nodes | $seconds | $rss | $proof | $held |"
        if [[ -n "$out" ]]; then
            printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$name" "$stones" "$word" "$best" \
                "$nodes" "$seconds" "$rss" "$proof" "$held" "${open#open: }" "$fen" >>"$out"
        fi
    done < <(ladder_positions "$list" "${select[@]}")
}

usage() {
    echo "Usage: scripts/ladder.sh generate [--out FILE]"
    echo "       scripts/ladder.sh run [--time S] [--memory MB] [--threads N] [--method M] [--store DIR] [--list FILE] [--out FILE] [names or prefixes...]"
}

case "${1:-}" in
generate)
    shift
    need_vato
    generate "$@"
    ;;
run)
    shift
    need_vato
    run "$@"
    ;;
-h | --help)
    usage
    ;;
*)
    usage >&2
    exit 2
    ;;
esac
