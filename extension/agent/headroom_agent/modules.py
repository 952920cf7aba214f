"""Module scopes: which nn.Module's forward or backward each allocation happened in.

torch >= 2.10 stamps every allocator trace entry with a thread-local string
(`torch.cuda.memory._set_memory_metadata`). Global module hooks append "\\x1ehr:f:<path>" to it
while a module's forward runs; a gradient hook on a module's outputs appends "\\x1ehr:b:<path>" on
autograd's thread when that module's backward begins, and one on its inputs puts the enclosing
module back when it ends. Paths are names in the model (`transformer.h.3.attn`), found once per
model. A string the workload sets itself is kept in front of Headroom's part.

Nothing here runs while torch.compile traces (no graph break): a compiled region is credited to
the module that called it. Every hook swallows its own errors: a scope is a hint, never a failure.

Cost: ~20 us per module call, measured on an H100 (test/gpu/capture/frameworks/probe_cost.py):
1.14x on a small GPT's step, ~1.5x on a launch-bound loop of small modules. So they are off unless
asked for (`headroom run --modules on`). In mode "auto" with recording windows (the default
recording) the hooks follow the windows: on while a window records (the steps where the peak
rises, which are the ones a snapshot holds), off between them, so scopes are there around the peak
at the cost of the window's steps only. In mode "auto" with full recording the hooks time
themselves and remove themselves once they have taken more than BUDGET of the process's time.
"""
import gc
import threading
import time
import weakref

SEP = "\x1ehr:"
MAX_SCANS = 3
BUDGET = 0.01
CHECK_EVERY = 1024
_KINDS = (list, tuple)


class Scopes(object):
    def __init__(self, torch, log, mode="auto", windowed=False):
        self.torch = torch
        self.log = log
        self.mode = mode
        # Hooks on only while a recording window is open (recorder.sync_scopes), with no budget.
        self.windowed = windowed and mode == "auto"
        self.handles = []
        self.spent = 0.0
        self.calls = 0
        self.since = time.perf_counter()
        mem = torch.cuda.memory
        self._set = mem._set_memory_metadata
        self.names = weakref.WeakKeyDictionary()
        # Output tensors already given a backward scope by an inner module (the innermost wins),
        # by id: a tensor's == is elementwise.
        self.hooked = weakref.WeakValueDictionary()
        self.local = threading.local()
        self.scans = 0
        self.roots = 0
        # torch.compile's "am I tracing" (torch >= 2.3; no compiler at all before 2.0).
        self.compiling = getattr(getattr(torch, "compiler", None), "is_compiling", None) or (lambda: False)
        self.tracing = torch.jit.is_tracing
        self._wrap_user_setter(mem)

    # -- the metadata string ------------------------------------------------------------------

    def _wrap_user_setter(self, mem):
        """The workload's own metadata stays in front of ours, per thread, as torch keeps it."""
        scopes = self
        original = self._set

        def _set_memory_metadata(metadata):
            st = scopes._state()
            st.user = metadata
            return original(metadata + st.tag)

        _set_memory_metadata.__wrapped__ = original
        _set_memory_metadata.__doc__ = original.__doc__
        mem._set_memory_metadata = _set_memory_metadata

    def _state(self):
        st = getattr(self.local, "st", None)
        if st is None:
            st = self.local.st = _Thread()
        return st

    def _apply(self, st, tag):
        st.tag = tag
        self._set(st.user + tag if tag else st.user)

    # -- names --------------------------------------------------------------------------------

    def name_of(self, module, st):
        name = self.names.get(module)
        if name is not None:
            return name
        for parent, parent_name in reversed(st.stack):
            self._name_tree(parent, parent_name)
            name = self.names.get(module)
            if name is not None:
                return name
        top = self._top(module)
        self.roots += 1
        self._name_tree(top, "" if self.roots == 1 else _class(top))
        name = self.names.get(module)
        if name is None:
            name = self.names[module] = type(module).__name__
        return name

    def _name_tree(self, top, prefix):
        for sub, m in top.named_modules():
            # torch.compile's wrapper is not part of the model's own names.
            sub = ".".join(p for p in sub.split(".") if p != "_orig_mod")
            path = prefix + "." + sub if prefix and sub else (sub or prefix or _class(m))
            if m not in self.names:
                self.names[m] = path

    def _top(self, module):
        """The outermost module holding `module` (a LightningModule whose training_step calls a
        submodule directly): one scan of the garbage collector's objects, at most MAX_SCANS times."""
        if self.scans >= MAX_SCANS:
            return module
        self.scans += 1
        parent = {}
        Module = self.torch.nn.Module
        for obj in gc.get_objects():
            if issubclass(type(obj), Module):  # type(), not isinstance: a __class__ property can warn
                for child in obj.__dict__.get("_modules", {}).values():
                    if child is not None:
                        parent.setdefault(id(child), obj)
        seen = set()
        while id(module) in parent and id(module) not in seen:
            seen.add(id(module))
            module = parent[id(module)]
        return module

    # -- hooks --------------------------------------------------------------------------------

    def install(self):
        hooks = self.torch.nn.modules.module
        self.handles.append(hooks.register_module_forward_pre_hook(self._pre))
        try:
            self.handles.append(hooks.register_module_forward_hook(self._post, always_call=True))
        except TypeError:
            self.handles.append(hooks.register_module_forward_hook(self._post))

    def _charge(self, t0):
        self.spent += time.perf_counter() - t0
        self.calls += 1
        if self.calls % CHECK_EVERY == 0 and self.mode == "auto" and not self.windowed:
            elapsed = time.perf_counter() - self.since
            if elapsed > 1.0 and self.spent > BUDGET * elapsed:
                self.uninstall(
                    "memory by module is off from here: its hooks took %.1f%% of this process's time over %d module calls"
                    " (small, launch-bound modules). HEADROOM_MODULES=on keeps it whatever it costs." % (100 * self.spent / elapsed, self.calls)
                )

    def uninstall(self, why):
        self.pause()
        self.mode = "off"
        self.log("warning", why)

    def pause(self):
        """Hooks off, this thread's scope cleared; on the workload's thread, between steps."""
        for h in self.handles:
            h.remove()
        self.handles = []
        try:
            st = self._state()
            st.stack = []
            st.floor = ""
            self._apply(st, "")
        except Exception:
            pass

    def resume(self):
        """Hooks back on (a window opened), unless they are off for good."""
        if not self.handles and self.mode != "off":
            self.install()

    def _pre(self, module, args):
        if self.compiling() or self.tracing():
            return None
        t0 = time.perf_counter()
        try:
            st = self._state()
            name = self.name_of(module, st)
            st.stack.append((module, name))
            self._apply(st, SEP + "f:" + name)
            if self.torch.is_grad_enabled():
                self._on_tensors(args, self._exit_hook(st.stack[-2][1] if len(st.stack) > 1 else None))
        except Exception:
            pass
        self._charge(t0)
        return None

    def _post(self, module, args, output):
        if self.compiling() or self.tracing():
            return None
        t0 = time.perf_counter()
        try:
            st = self._state()
            while st.stack:
                m, name = st.stack.pop()
                if m is module:
                    break
            self._apply(st, SEP + "f:" + st.stack[-1][1] if st.stack else st.floor)
            if self.torch.is_grad_enabled():
                self._on_tensors(output, self._enter_hook(self.names.get(module)), self.hooked)
        except Exception:
            pass
        self._charge(t0)
        return None

    def _on_tensors(self, value, hook, once=None, depth=0):
        Tensor = self.torch.Tensor
        if isinstance(value, Tensor):
            # Never a leaf: a hook on a parameter would stay on it, one more each step.
            if hook is not None and value.grad_fn is not None and (once is None or once.get(id(value)) is not value):
                value.register_hook(hook)
                if once is not None:
                    once[id(value)] = value
        elif depth < 2:
            items = value.values() if isinstance(value, dict) else value if isinstance(value, _KINDS) else ()
            for v in items:
                self._on_tensors(v, hook, once, depth + 1)

    def _grad_hook(self, tag, role):
        """A gradient hook that sets this thread's backward scope to `tag`, on autograd's thread:
        "enter" when the gradient of a module's output arrives, "exit" when that of its input is
        complete (the enclosing module's scope back), "clear" at a backward pass's roots."""

        def hook(grad):
            try:
                st = self._state()
                if role == "enter":
                    st.entered = id(grad)
                elif role == "clear":
                    st.entered = None
                elif st.entered == id(grad):
                    # The same gradient entering the module that made this tensor: that one wins.
                    return
                st.floor = tag
                self._apply(st, tag)
            except Exception:
                pass

        return hook

    def _enter_hook(self, name):
        return None if name is None else self._grad_hook(SEP + "b:" + name, "enter")

    def _exit_hook(self, parent):
        return self._grad_hook(SEP + "b:" + parent if parent is not None else "", "exit")

    def backward_root(self, tensors):
        """Called on the workload's thread before backward(): the roots' gradient hooks clear the
        last pass's scope on autograd's thread before anything of this pass is allocated."""
        clear = self._grad_hook("", "clear")
        try:
            Tensor = self.torch.Tensor
            for t in tensors if isinstance(tensors, _KINDS) else (tensors,):
                if isinstance(t, Tensor) and t.requires_grad and t.grad_fn is not None:
                    t.register_hook(clear)
        except Exception:
            pass


def _class(module):
    """A module's class name; torch.compile's wrapper is named by the module it wraps."""
    return type(module.__dict__.get("_modules", {}).get("_orig_mod") or module).__name__


class _Thread(object):
    __slots__ = ("stack", "user", "tag", "floor", "entered")

    def __init__(self):
        self.stack = []
        self.user = ""
        self.tag = ""
        self.floor = ""
        self.entered = None


def install(torch, log, mode="auto", windowed=False):
    """Module scopes, where this torch can stamp trace entries; None where it cannot."""
    if not hasattr(getattr(torch.cuda, "memory", None), "_set_memory_metadata"):
        return None
    scopes = Scopes(torch, log, mode, windowed)
    scopes.install()
    return scopes
