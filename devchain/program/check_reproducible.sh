#!/usr/bin/env bash
# CI: prove every committed devchain/program/*.so is built from its source, byte for byte.
# Installs Debian's clang when missing (the machine has only apt, no Solana toolchain).
set -euo pipefail
cd "$(dirname "$0")/../.."
if ! command -v clang >/dev/null 2>&1; then
    apt-get update -qq && apt-get install -y -qq clang
    command -v clang >/dev/null 2>&1 || { echo "clang could not be installed" >&2; exit 1; }
fi
make -C devchain/program check
