# Sourced by the device scripts: the project and lark (carried as build/whl) into /tmp/site.
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --target /tmp/site build/whl/*.whl 2>&1 | tail -3
python3 -m pip install -q --no-index --no-deps --no-build-isolation --no-compile --target /tmp/site . 2>&1 | tail -3
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1 COLUMNS=120
P() { python3 -P docs/results/gpu/interp/p.py "$@"; }
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv
