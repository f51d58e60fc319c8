#!/usr/bin/env bash
# Installs what the grader and its jail need into the python3 first on PATH, from the requirements.txt
# beside this script: the container image (docker/Dockerfile) and Gradescope's setup.sh both run it, so
# each grades with the same pinned versions as the README's `make`.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
requirements="$here/requirements.txt"
[ -f "$requirements" ] || requirements="$(dirname "$here")/requirements.txt"  # run from the kit's checkout

if ! python3 -m pip --version >/dev/null 2>&1 && command -v apt-get >/dev/null; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq python3 python3-pip python3-venv
fi
if ! python3 -c 'import sys; sys.exit(sys.version_info < (3, 11))'; then
  echo "install.sh: the kit needs Python 3.11 or newer, and python3 here is $(python3 --version 2>&1)" \
       "(on Gradescope, choose the Ubuntu 24.04 base image)" >&2
  exit 1
fi
# A distribution's own Python refuses pip (PEP 668); this machine grades and does nothing else.
export PIP_BREAK_SYSTEM_PACKAGES=1 PIP_ROOT_USER_ACTION=ignore
# PyPI's torch wheel brings several GB of CUDA libraries: the CPU build of the pinned version comes
# from PyTorch's own index, and then satisfies the requirements' pin.
torch=$(grep -E '^torch==' "$requirements")
python3 -m pip install --quiet --index-url https://download.pytorch.org/whl/cpu "$torch"
python3 -m pip install --quiet -r "$requirements"
