#!/usr/bin/env bash
# Installs Debian bookworm's CUDA toolkit 11.8 (nvcc, ptxas; no GPU needed)
# when nvcc is missing: the toolkit that made the committed PTX of
# engine/backend/cuda/kernels. It lives in Debian's non-free component, which this
# enables. Needs root and the Debian package registry (about a minute).
set -euo pipefail
if command -v nvcc >/dev/null 2>&1 && command -v ptxas >/dev/null 2>&1; then
	exit 0
fi
if [ "$(id -u)" != 0 ]; then
	echo "cuda-toolkit: nvcc is missing; run as root to install Debian's nvidia-cuda-toolkit" >&2
	exit 1
fi
src=/etc/apt/sources.list.d/debian.sources
if [ -f "$src" ] && ! grep -q 'non-free' "$src"; then
	sed -i 's/^Components: main$/Components: main contrib non-free non-free-firmware/' "$src"
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends nvidia-cuda-toolkit >/dev/null
nvcc --version | tail -1
