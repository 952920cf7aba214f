"""Parameter names without per-call hooks: who holds which module, learnt as the model is built.

torch >= 2.0 calls global hooks whenever a module registers a parameter or a child module. They
note, by weak reference (nothing is kept alive), each module that owns parameters and each child's
parent: a few microseconds per registration, at construction time only. An optimizer's parameters
are named once, at its first observed step, by `named_parameters()` of the outermost modules above
those owners: exactly the names the workload's own code uses (a tied weight keeps its first name),
and still right when a loader swapped the Parameter objects after they were registered (HF's
meta-device loading), since the modules holding them were seen.
"""
import sys
import weakref

FALLBACK = "param[%d] %s"


class _Refs(object):
    """id -> (weak reference, value): for objects whose __eq__/__hash__ the workload may override."""

    def __init__(self):
        self.items = {}

    def put(self, obj, value=None, keep_first=False):
        key = id(obj)
        if keep_first and key in self.items and self.items[key][0]() is obj:
            return
        items = self.items

        def gone(ref, key=key):
            cur = items.get(key)
            if cur is not None and cur[0] is ref:
                del items[key]

        items[key] = (weakref.ref(obj, gone), value)

    def get(self, obj):
        cur = self.items.get(id(obj))
        return cur[1] if cur is not None and cur[0]() is obj else None

    def live(self):
        return [o for o in (r() for r, _ in list(self.items.values())) if o is not None]


class Names(object):
    def __init__(self):
        self.owners = _Refs()  # modules that registered a parameter, in registration order
        self.parents = _Refs()  # child module -> weak reference to its first parent

    def install(self, torch):
        """False where this torch has no registration hooks (torch < 2.0)."""
        mm = sys.modules.get("torch.nn.modules.module")
        reg_param = getattr(mm, "register_module_parameter_registration_hook", None)
        reg_module = getattr(mm, "register_module_module_registration_hook", None)
        if reg_param is None or reg_module is None:
            return False
        names = self
        # Never traced by torch.compile (a module built inside a compiled region): no graph break.
        compiling = getattr(getattr(torch, "compiler", None), "is_compiling", None) or (lambda: False)

        def on_param(module, name, param):
            try:
                if not compiling():
                    names.owners.put(module, True, keep_first=True)
            except Exception:
                pass
            return None

        def on_module(module, name, child):
            try:
                if child is not None and not compiling():
                    names.parents.put(child, weakref.ref(module), keep_first=True)
            except Exception:
                pass
            return None

        reg_param(on_param)
        reg_module(on_module)
        return True

    def _root(self, module):
        seen = set()
        while id(module) not in seen and len(seen) < 10000:
            seen.add(id(module))
            ref = self.parents.get(module)
            parent = ref() if ref is not None else None
            if parent is None:
                break
            module = parent
        return module

    def name(self, params):
        """Names for `params` (a list), in its order; (names, unnamed indices)."""
        roots = []
        seen = set()
        for m in self.owners.live():
            r = self._root(m)
            if id(r) not in seen:
                seen.add(id(r))
                roots.append(r)
        wanted = dict((id(p), i) for i, p in enumerate(params))
        found = {}  # param index -> (root index, name)
        for k, root in enumerate(roots):
            if len(found) == len(wanted):
                break
            try:
                for name, p in root.named_parameters():
                    i = wanted.get(id(p))
                    if i is not None and params[i] is p and i not in found:
                        found[i] = (k, ".".join(c for c in name.split(".") if c != "_orig_mod"))
            except Exception:
                continue
        # Several models behind one optimizer (a GAN's G and D): each name starts with its model's class.
        used = sorted(set(k for k, _ in found.values()))
        prefix = {}
        if len(used) > 1:
            count = {}
            for k in used:
                cls = type(roots[k]).__name__
                count[cls] = count.get(cls, 0) + 1
                prefix[k] = cls + ("#%d" % count[cls] if count[cls] > 1 else "") + "."
        names = []
        unnamed = []
        for i, p in enumerate(params):
            if i in found:
                k, name = found[i]
                names.append(prefix.get(k, "") + name)
            else:
                unnamed.append(i)
                names.append(FALLBACK % (i, tuple(int(d) for d in getattr(p, "shape", ()))))
        return names, unnamed
