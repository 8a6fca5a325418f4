#!/bin/sh
# Self-play training data in files of GAMES games each, one seed per file, so that an
# interrupted run is resumed by running the same command again: finished files are kept,
# the file that was being written is played again from its seed.
#
#   scripts/datagen.sh DIR FILES [GAMES] [DEPTH] [THREADS] [FIRST_SEED]
#
# Writes DIR/d{DEPTH}-s{SEED}.vdata for SEED = FIRST_SEED .. FIRST_SEED + FILES - 1.
# VATO names the binary (default target/release/vato); DATAGEN_FLAGS adds options to each
# run, for example "--hand-written" or "--eval-file net.nnue".
set -eu
dir=${1:?usage: datagen.sh DIR FILES [GAMES] [DEPTH] [THREADS] [FIRST_SEED]}
files=${2:?usage: datagen.sh DIR FILES [GAMES] [DEPTH] [THREADS] [FIRST_SEED]}
games=${3:-1000}
depth=${4:-6}
threads=${5:-2}
first=${6:-1}
vato=${VATO:-target/release/vato}
mkdir -p "$dir"
seed=$first
while [ "$seed" -lt $((first + files)) ]; do
    out="$dir/d$depth-s$seed.vdata"
    if [ ! -e "$out" ]; then
        "$vato" datagen --output "$out" --games "$games" --depth "$depth" ${DATAGEN_FLAGS:-} \
            --threads "$threads" --seed "$seed"
    fi
    seed=$((seed + 1))
done
