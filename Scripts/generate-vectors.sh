#!/usr/bin/env bash
# Regenerates Tests/StellarBaseTests/Vectors/vectors.json with the real Python stellar-sdk.
set -euo pipefail
cd "$(dirname "$0")/.."
source Scripts/python-env.sh
"$TENDER_PYTHON" Scripts/generate_vectors.py > Tests/StellarBaseTests/Vectors/vectors.json.new
mv Tests/StellarBaseTests/Vectors/vectors.json.new Tests/StellarBaseTests/Vectors/vectors.json
echo "wrote Tests/StellarBaseTests/Vectors/vectors.json"
