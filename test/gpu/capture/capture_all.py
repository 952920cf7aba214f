"""Runs every capture scenario in its own process (clean allocator stats each) and writes the
pickles and truth files into OUT. Usage: python3 capture_all.py OUT [scenario ...]"""
import os
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.abspath(os.path.join(HERE, "..", "..", ".."))

SCENARIOS = {
    "transformer_amp_ckpt": ("transformer_amp_ckpt.py", [], {}),
    "ring_overflow": ("ring_overflow.py", [], {}),
    "expandable_train": ("expandable.py", [], {"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True"}),
    "frag_oom": ("frag_oom.py", [], {}),
    "private_pool_oom": ("private_pool_oom.py", [], {}),
    "leaky_demo": ("run_recorded.py", [os.path.join(ROOT, "demo", "workspace", "train_leaky.py"), "leaky_demo"], {}),
    "big_trace": ("big_trace.py", [], {}),
    "e2e_train_b64": ("run_recorded.py", [os.path.join(ROOT, "test", "e2e", "workspace", "train.py"), "e2e_train_b64", "64"], {}),
    "e2e_train_b128": ("run_recorded.py", [os.path.join(ROOT, "test", "e2e", "workspace", "train.py"), "e2e_train_b128", "128"], {}),
}


def main():
    out = os.path.abspath(sys.argv[1])
    os.makedirs(out, exist_ok=True)
    for name in sys.argv[2:] or list(SCENARIOS):
        script, extra, env = SCENARIOS[name]
        t0 = time.time()
        cmd = [sys.executable, os.path.join(HERE, script), out, *extra]
        r = subprocess.run(cmd, cwd=HERE, env={**os.environ, **env}, capture_output=True, text=True, timeout=400)
        print(f"== {name}: rc={r.returncode} {time.time() - t0:.1f}s", flush=True)
        print(r.stdout[-2000:], r.stderr[-3000:], flush=True)


if __name__ == "__main__":
    main()
