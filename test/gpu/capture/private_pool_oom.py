"""A CUDA graph's private pool holds memory; then an OOM under a cap, whose message names the
private-pool bytes ("with X allocated in private pools")."""
import torch
import torch.nn as nn

from common import dump, record

MiB = 1 << 20


def main():
    model = nn.Sequential(nn.Linear(2048, 8192), nn.ReLU(), nn.Linear(8192, 2048)).cuda()
    static_in = torch.randn(512, 2048, device="cuda")
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(2):
            model(static_in)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        static_out = model(static_in)
    g.replay()
    torch.cuda.synchronize()
    return model, static_in, static_out, g


if __name__ == "__main__":
    record()
    keep = main()
    reserved = torch.cuda.memory_reserved()
    total = torch.cuda.get_device_properties(0).total_memory
    torch.cuda.set_per_process_memory_fraction((reserved + 64 * MiB) / total)
    message = None
    try:
        torch.empty(256 * MiB, dtype=torch.uint8, device="cuda")
    except torch.OutOfMemoryError as e:
        message = str(e)
    dump("private_pool_oom", {"oom": {"message": message}})
