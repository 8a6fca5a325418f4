#!/bin/sh
# The move generator's cost in instructions, which no load on the machine can disturb:
# builds Vato for x86-64-v3 (valgrind cannot decode the AVX-512 code that
# target-cpu=native may emit) and counts the instructions of `vato perft DEPTH` under
# callgrind, start-up included (about 0.7 M).
#
#   scripts/perft-instructions.sh [DEPTH] [FEN]
#
# Needs valgrind (Debian package `valgrind`). DEPTH defaults to 5, FEN to the start.
# The build goes to target/x86-64-v3 so that it does not disturb the ordinary one.
set -eu
depth=${1:-5}
fen=${2:-}
target=target/x86-64-v3
RUSTFLAGS="-C target-cpu=x86-64-v3" CARGO_TARGET_DIR=$target cargo build --release --quiet
if [ -n "$fen" ]; then
    set -- --fen "$fen"
else
    set --
fi
valgrind --tool=callgrind --callgrind-out-file=/dev/null \
    "$target/release/vato" perft "$depth" --threads 1 "$@" 2>&1 |
    awk '/Nodes searched/ { print } /Collected/ { print "instructions: " $NF }'
