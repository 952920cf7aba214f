"""torch 2.x's global registration and optimizer-step hooks, on a torch that lacks them (Debian's
1.13, the only torch these tests can install): each is called where torch 2.x calls it (from
torch/nn/modules/module.py and torch/optim/optimizer.py of 2.x). A torch that has them is left
alone. Tests only: on a GPU host, test/gpu/params.gpu.test.ts runs the real ones."""
import sys
from collections import OrderedDict

import torch
import torch.utils.hooks as hooks


def install():
    mm = sys.modules["torch.nn.modules.module"]
    om = sys.modules["torch.optim.optimizer"]
    if hasattr(mm, "register_module_parameter_registration_hook") and hasattr(om, "register_optimizer_step_post_hook"):
        return False
    Module = torch.nn.Module
    param_hooks, module_hooks, post_hooks = OrderedDict(), OrderedDict(), OrderedDict()

    def registrar(table):
        def register(hook):
            handle = hooks.RemovableHandle(table)
            table[handle.id] = hook
            return handle

        return register

    mm.register_module_parameter_registration_hook = registrar(param_hooks)
    mm.register_module_module_registration_hook = registrar(module_hooks)
    om.register_optimizer_step_post_hook = registrar(post_hooks)

    def run(table, module, name, value):
        for hook in list(table.values()):
            out = hook(module, name, value)
            if out is not None:
                value = out
        return value

    register_parameter = Module.register_parameter

    def register_parameter_hooked(self, name, param):
        # 2.x: hooks run for a Parameter that passed the checks, just before it is stored.
        if isinstance(param, torch.nn.Parameter) and not param.grad_fn and "_parameters" in self.__dict__:
            param = run(param_hooks, self, name, param)
        return register_parameter(self, name, param)

    add_module = Module.add_module

    def add_module_hooked(self, name, module):
        if isinstance(module, Module):
            module = run(module_hooks, self, name, module)
        return add_module(self, name, module)

    setattr_ = Module.__setattr__

    def setattr_hooked(self, name, value):
        # 2.x's __setattr__ runs the module hooks for a Module value (Parameters go through
        # register_parameter, hooked above).
        if isinstance(value, Module) and self.__dict__.get("_modules") is not None:
            value = run(module_hooks, self, name, value)
        return setattr_(self, name, value)

    Module.register_parameter = register_parameter_hooked
    Module.add_module = add_module_hooked
    Module.register_module = add_module_hooked
    Module.__setattr__ = setattr_hooked

    init = torch.optim.Optimizer.__init__

    def init_hooked(self, *args, **kwargs):
        # 2.x's _patch_step_function: each optimizer class's step, wrapped once, runs the global
        # post hooks after the step.
        init(self, *args, **kwargs)
        cls = type(self)
        if not getattr(cls.step, "headroom_polyfill", False):
            step = cls.step

            def step_hooked(opt, *a, **k):
                out = step(opt, *a, **k)
                for hook in list(post_hooks.values()):
                    hook(opt, a, k)
                return out

            step_hooked.headroom_polyfill = True
            cls.step = step_hooked

    torch.optim.Optimizer.__init__ = init_hooked
    return True
