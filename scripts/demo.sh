#!/usr/bin/env bash
# make seed: build the BookStore seed, then show the release flow on a copy of it.
set -euo pipefail
seedkit=${1:-.build/debug/seedkit}
"$seedkit" build
