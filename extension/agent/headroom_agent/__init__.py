"""Headroom's agent: records a PyTorch process's CUDA memory for the Headroom editor and CLI.

Standard library only; Python 3.9+. It never changes what the workload sees and never raises
into it: every failure is logged to the run folder and to the editor.
"""

__version__ = "0.1.0"
