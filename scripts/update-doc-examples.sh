#!/usr/bin/env bash
# Rewrites the answers in the example sessions of README.md and protocol.md from a real run
# of the engine, after an intended change of its output. Blocks with left-out lines
# ("(...)") and error tables are not rewritten: the test then names the ones to edit by
# hand. Review the result with `git diff` before committing.
set -euo pipefail
cd "$(dirname "$0")/.."
VATO_UPDATE_DOCS=1 cargo test --release --test doc_examples -- --test-threads 1 || true
cargo test --release --test doc_examples
