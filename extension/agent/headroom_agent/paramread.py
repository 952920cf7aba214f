"""Reading an optimizer's tensors at a step, cheaply (params.py).

A step first takes a signature: each tensor's data_ptr(), one C call a tensor, laid out per
parameter as [parameter, gradient (0: none), -1 - number of state tensors, state tensors...]. An
unchanged signature means unchanged addresses. Otherwise only the tensors whose data_ptr() moved
have their storage read again (the gradients, after zero_grad(set_to_none=True)), as long as the
same tensors exist; any other change reads everything.
"""


def states_by_id(opt):
    # By id: a Tensor's __hash__ is a Python function (torch/_tensor.py), and opt.state[p] would add
    # an entry to the workload's defaultdict.
    return dict((id(k), v) for k, v in opt.state.items())


def signature(Tensor, states, params):
    """The signature, or None when a tensor has no storage to point at (sparse, meta)."""
    sig = []
    add = sig.append
    try:
        for p in params:
            add(p.data_ptr())
            g = p.grad
            add(g.data_ptr() if g is not None else 0)
            s = states.get(id(p))
            ts = [v.data_ptr() for v in s.values() if isinstance(v, Tensor)] if s else ()
            add(-1 - len(ts))
            sig.extend(ts)
    except Exception:
        return None
    return sig


def _read(out, i, kind, t, cpu):
    """(device, storage address, storage bytes) of a CUDA tensor (any tensor with `cpu`)."""
    try:
        dev = t.get_device()
        if dev < 0 and not cpu:
            return
        us = getattr(t, "untyped_storage", None) or t._storage  # torch < 2.0: _storage
        st = us()
        ptr = st.data_ptr()
        if ptr:
            out[(i, kind)] = (dev, ptr, st.nbytes())
    except Exception:
        pass


def read_all(Tensor, states, params, cpu):
    """Every tensor: ({(index, kind): entry}, keys laid out as the signature)."""
    out = {}
    keys = []
    add = keys.append
    for i, p in enumerate(params):
        add((i, "p", None))
        _read(out, i, "p", p, cpu)
        add((i, "g", None))
        g = p.grad
        if g is not None:
            _read(out, i, "g", g, cpu)
        s = states.get(id(p))
        add((i, "#", None))
        for k, v in list(s.items()) if s else ():
            if isinstance(v, Tensor):
                kind = "s:%s" % (k,)
                add((i, kind, k))
                _read(out, i, kind, v, cpu)
    return out, keys


def read_moved(states, params, cpu, sig, prev, keys, old):
    """The entries after only addresses moved, and the (index, kind) pairs that moved; None when
    some other tensor came or went (a full read is needed)."""
    if prev is None or keys is None or len(prev) != len(sig):
        return None
    moved = [keys[j] for j, (a, b) in enumerate(zip(sig, prev)) if a != b]
    if any(kind == "#" for _, kind, _ in moved):
        return None
    out = dict(old)
    for i, kind, k in moved:
        p = params[i]
        t = p if kind == "p" else p.grad if kind == "g" else states[id(p)].get(k)
        out.pop((i, kind), None)
        if t is not None:
            _read(out, i, kind, t, cpu)
    return out, [(i, kind) for i, kind, _ in moved]
