set -x
python3 -m pip install -q --no-index --no-deps --no-compile --no-cache-dir --upgrade --target /tmp/site .whl/*.whl || exit 1
export PYTHONPATH=/tmp/site:$PWD PYTHONUNBUFFERED=1
python3 --version; nvidia-smi --query-gpu=name,driver_version,clocks.sm --format=csv
python3 -c "import cupy, rich, click, networkx; print(cupy.__version__)"
P="python3 .gpu_carry/p.py"
python3 -m pytest tests/test_gpu_cuda.py -q -rs 2>&1 | tail -5
time $P run tests/data/gpu litmus --iterations 3 --deadline 20ms -o $OUT/small.csv
cat $OUT/small.csv; cat $OUT/small.jsonl
for d in 1ms 10ms 100ms; do $P run tests/data/gpu/pc_decreasing.axb --heuristics chunked --iterations 2 --deadline $d -o /tmp/d$d.csv; cat /tmp/d$d.jsonl; done
time $P run litmus/oopsla21 --iterations 2 --deadline 10ms -o $OUT/suite2.csv
grep -c F $OUT/suite2.csv; python3 - <<'P2'
import json,collections,os
rs=[json.loads(l) for l in open(os.environ['OUT']+'/suite2.jsonl')]
for h in ('plain','rr','chunked'):
    s=[r for r in rs if r['heuristic']==h]
    f=[r for r in s if r['result']!='P']
    print(h, len(s), 'fail', len(f), 'sec total %.2f'%sum(r['seconds'] for r in s), 'pass-mean %.4f'%(sum(r['seconds'] for r in s if r['result']=='P')/max(1,len(s)-len(f))))
    print(' sample fails', [(r['test'],r['result'],r['failed_instances']) for r in f[:8]])
P2
cat $OUT/suite2.json
