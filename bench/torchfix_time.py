"""Times TorchFix from a source checkout on one file, in-process: python3 torchfix_time.py SRC FILE N.
Prints TORCHFIX_MS <median of N runs> (parse + every rule, what `torchfix --select ALL` does per file)."""
import contextlib
import io
import statistics
import sys
import time

src_dir, path, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
sys.path.insert(0, src_dir)
import libcst as cst  # noqa: E402
import libcst.codemod as codemod  # noqa: E402
from torchfix.torchfix import TorchCodemod, TorchCodemodConfig, process_error_code_str  # noqa: E402

text = open(path, encoding="utf-8").read()
config = TorchCodemodConfig()
config.select = list(process_error_code_str("ALL"))
times = []
for _ in range(n):
    t = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):  # its findings, printed as it goes
        TorchCodemod(codemod.CodemodContext(filename=path), config).transform_module(cst.parse_module(text))
    times.append(time.perf_counter() - t)
print("TORCHFIX_MS %.1f" % (statistics.median(times) * 1000))
