# issue 9: complete, classified 6-instruction suites with `progress synth --engine cuda`
# on the H200 machine (GPU judge, classifying processes on the CPU cores).
# Run from a checkout of the branch, with the wheels of ../.whl (lark) beside it:
#   bash docs/results/gpu/scripts/synth_cuda_6i.sh WORKERS [pytest] CONFIG...   (CONFIG: 2t6i or 3t6i)
# Writes $OUT/NAME.{out,time}, $OUT/suites_NAME.json (benchmarks/report_suites.py), $OUT/pytest.txt.
set -u
BUDGET=${BUDGET:-570}  # seconds for the whole script: each run gets --time-limit (what is left - 45 s for its report)
workers=$1; shift
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site ../.whl/*.whl || exit 1
python3 -m pip install -q --no-deps --no-build-isolation --no-cache-dir --target /tmp/site . >/dev/null 2>&1 || exit 1
export PYTHONPATH=/tmp/site PYTHONUNBUFFERED=1
T0=$(date +%s)
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader; nproc; python3 --version; grep -m1 'model name' /proc/cpuinfo; free -g | head -2
if [ "$1" = pytest ]; then
  shift
  SECONDS=0
  python3 -P -m pytest -q -p no:cacheprovider -m "gpu or not gpu" tests/test_synth_cuda.py tests/test_synth_cuda_engine.py 2>&1 | tee $OUT/pytest.txt | tail -3
  echo "pytest: $SECONDS s"
fi
mkdir -p /tmp/runs
timer() { if [ -x /usr/bin/time ]; then /usr/bin/time -v -o "$@"; else python3 -P benchmarks/rusage_time.py "$@"; fi; }
for name in "$@"; do
  t=${name%%t*}; rest=${name#*t}; i=${rest%%i*}
  left=$((BUDGET - ($(date +%s) - T0) - 45)); [ $left -gt 30 ] || { echo "$name: no time left"; continue; }
  start=$(date +%s)
  timer /tmp/runs/$name.time python3 -P -m progress synth -t $t -i $i --engine cuda --workers $workers \
      --time-limit $left --out /tmp/runs/$name.db >$OUT/$name.out 2>/tmp/runs/$name.err
  code=$?; cp /tmp/runs/$name.time $OUT/
  echo "$name: exit $code in $(( $(date +%s) - start )) s (time limit $left s)"; tail -2 /tmp/runs/$name.err; cat $OUT/$name.out
  SECONDS=0
  python3 -P benchmarks/report_suites.py /tmp/runs $name --out $OUT/suites_$name.json && echo "report: $SECONDS s"
  ls -l /tmp/runs
done
# keys files (synth/keys.py format 1, streamed from each store) while time is left: size and sha256
mkdir -p /tmp/keys
for name in "$@"; do
  left=$((BUDGET - ($(date +%s) - T0))); [ $left -gt 90 ] || { echo "keys $name: no time left"; continue; }
  SECONDS=0
  python3 -P -c "
import sys
from progress.synth import keys
from progress.synth.space import Bounds
from progress.synth.store import Store
with Store(sys.argv[1], readonly=True) as s:
    p = s.params()
    b = Bounds(p['threads'], p['instructions'], p['locations'], p['values'])
    with open(sys.argv[2], 'wb') as f:
        print(keys.write_packed(f, b, s.labels(), s.count_tests(), s.packed_tests()), 'tests')
" /tmp/runs/$name.db /tmp/keys/$name.keys.gz && echo "keys $name: $SECONDS s"
  ls -l /tmp/keys/$name.keys.gz; sha256sum /tmp/keys/$name.keys.gz
  [ $(stat -c %s /tmp/keys/$name.keys.gz) -le 16000000 ] && cp /tmp/keys/$name.keys.gz $OUT/
done
