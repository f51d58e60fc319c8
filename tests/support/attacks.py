"""Ways to switch off the delegation tripwire or reach the grader, each of which the static check must flag
(tests/unit/test_hostile.py holds its verdict on each; tests/system/test_hostile.py grades two of them held)."""

import textwrap

from autograder.engine.contract import spec

# Ways to switch off the delegation tripwire or read the grader, each of which the static check must flag (the
# check's verdict decides; none of these needs to run for it).
FLAGGED = {
    "disable_torch_function": ("layernorm", "import torch\nwith torch._C.DisableTorchFunction():\n    pass\n"),
    "pop_the_mode_stack": ("layernorm", "from torch.overrides import _pop_mode\n"),
    "mode_stack_by_name": ("layernorm", "import torch\nstack = torch.overrides._get_current_function_mode_stack\n"),
    "patch_the_tripwire": ("attention", "import sys\nsys.modules['autograder.child'].Tripwire = object\n"),
    "clear_the_meta_path": ("attention", "import sys\nsys.meta_path.clear()\n"),
    "run_the_reference_by_path": ("attention", "import runpy\n"),
    "spec_from_file_location": ("attention", "from importlib.util import spec_from_file_location\n"),
    "unlisted_kernel": ("layernorm", "import torch\nnorm = torch._refs.native_layer_norm\n"),
    # The second wave (issue 26, class 2): each scored full marks for torch's own kernel, with nothing flagged.
    "kernel_on_a_thread": ("layernorm", "import threading\n"),
    "kernel_in_a_pool": ("layernorm", "from concurrent.futures import ThreadPoolExecutor\n"),
    "tensor_subclass_hook": (
        "layernorm",
        "import torch\nclass Quiet(torch.Tensor):\n    @classmethod\n"
        "    def __torch_function__(cls, func, types, args=(), kwargs=None):\n        return func(*args)\n",
    ),
    "hook_as_an_attribute": ("layernorm", "import torch\nclass Quiet(torch.Tensor):\n    __torch_function__ = None\n"),
    "kernel_renamed": (
        "layernorm",
        "import torch.nn.functional as F\nnorm = getattr(F, 'layer_norm')\nnorm.__name__ = 'relu'\n",
    ),
    "sys_through_torch": ("attention", "import torch\nfound = torch.sys.modules\n"),
    "ctypes_through_torch": ("attention", "from torch import ctypes\n"),
    "builtins_through_torch": ("attention", "import torch as t\nrun = t.builtins.exec\n"),
    "sys_through_a_computing_module": ("attention", "import dataclasses\nfound = dataclasses.sys.modules\n"),
    "sys_by_assignment": ("attention", "import torch\nlib = torch\nfound = lib.sys.modules\n"),
    "torch_compiled": ("layernorm", "import torch\nfast = torch.compile(lambda x: x)\n"),
    "operator_registry": ("layernorm", "import torch\nnorm = torch.ops.aten.native_layer_norm\n"),
    "torch_rewritten": ("attention", "import torch\ntorch.nn.functional.softmax = None\n"),
    "worker_processes": ("attention", "import torch\nloader = torch.utils.data.DataLoader([], num_workers=1)\n"),
    "files": ("attention", "secret = open('/etc/hostname').read()\n"),
    "gc_walk": ("attention", "import gc\nobjects = gc.get_objects()\n"),
    "ctypes": ("attention", "import ctypes\n"),
    "signals": ("attention", "import os\nos.kill(2, 9)\n"),
    "proc": ("attention", "stat = open('/proc/self/status').read()\n"),
    "frames": ("attention", "import sys\nframe = sys._getframe(1).f_back\n"),
    "exec": ("attention", "exec('x = 1')\n"),
    "computed_getattr_on_torch": ("layernorm", "import torch\nc = getattr(torch, '_' + 'C')\n"),
    "module_vars": ("layernorm", "import torch\nc = vars(torch)['_' + 'C']\n"),
    # The fourth wave (issue 47): a format string reads attributes by the names in its text, and a child's reference
    # code objects with them; every way to format a string built at run time, and a literal that reads code.
    "format_built_at_run_time": ("masking", "leak = ('{0._' + '_code__.co_code}').format(thing)\n"),
    "format_map_built_at_run_time": (
        "masking",
        "fields = '{f._' + '_code__}'\nleak = fields.format_map({'f': thing})\n",
    ),
    "format_unbound": ("masking", "leak = str.format('{0.' + 'co_code}', thing)\n"),
    "format_by_getattr": ("masking", "leak = getattr('{0.' + 'co_code}', 'format')(thing)\n"),
    "format_of_its_type": ("masking", "text = '{0.' + 'co_code}'\nleak = type(text).format(text, thing)\n"),
    "format_in_a_partial": (
        "masking",
        "import functools\nleak = functools.partial(str.format, '{0.' + 'co_code}')(thing)\n",
    ),
    "format_literal_reads_code": ("masking", "leak = '{0.co_code}{0.f_back}{0[0].cell_contents}'.format(thing)\n"),
}


def needed_by(component, code):
    """The reference of component with code inside a decorator of its first graded name: code the graded name
    needs, which the check must hold (placed at the top level instead, nothing graded needs it)."""
    name = spec.BY_ID[component].names[0]
    reference = spec.BY_ID[component].reference.read_text()
    definition = next(line for line in reference.splitlines() if line.startswith((f"def {name}(", f"class {name}(")))
    helper = "def _reach(thing):\n" + textwrap.indent(code, "    ") + "    return thing\n\n\n"
    return reference.replace(definition, f"{helper}@_reach\n{definition}")


# The third wave (issue 34): each won what it attacked against a check that listed what is bad.
FLAGGED |= {
    "getattr_as_a_value": (
        "layernorm",
        "import torch\nfetch = getattr\nnorm = fetch(torch.nn.functional, 'layer_norm')\n",
    ),
    "reduce_over_getattr": (
        "layernorm",
        "import functools, torch\nnorm = functools.reduce(getattr, ('nn', 'functional', 'layer_norm'), torch)\n",
    ),
    "forward_reference_evaluated": (
        "attention",
        "import typing\nvalue = typing.ForwardRef('1')._evaluate({}, {}, frozenset())\n",
    ),
    "data_loader_workers": (
        "layernorm",
        "import torch\nloader = torch.utils.data.DataLoader([1], **{'num_workers': 1})\n",
    ),
    "autograd_function": ("layernorm", "import torch\nclass Forge(torch.autograd.Function):\n    pass\n"),
    "tensor_subclass_detach": (
        "masking",
        "import torch\nclass Forged(torch.Tensor):\n    def detach(self):\n        return self\n",
    ),
    "transformers_hidden": ("encoder", "import sys\nsys.modules.pop('transformers', None)\n"),
    "reference_globals": ("encoder", "leak = LayerNorm.forward.__globals__\n"),
    "builtins_by_name": ("attention", "leak = __builtins__\n"),
    "format_string_attributes": ("attention", "leak = '{0.__globals__}'.format(print)\n"),
    "module_as_a_value": ("layernorm", "import torch\nlibraries = [torch]\nfound = libraries[0].sys\n"),
    "frame_of_a_generator": ("attention", "frame = (x for x in ()).gi_frame\n"),
    "setattr_on_a_library": ("attention", "import torch\nsetattr(torch.nn.functional, 'softmax', print)\n"),
    "class_built_by_type": ("layernorm", "import torch\nQuiet = type('Quiet', (torch.Tensor,), {})\n"),
    "metaclass": ("attention", "class Meta(type):\n    pass\nclass Hooked(metaclass=Meta):\n    pass\n"),
    "star_import_from_a_library": ("attention", "from torch.overrides import *\n"),
    "keyrings": ("attention", "import ctypes\nctypes.CDLL(None).syscall(248)\n"),
    # A red team's, against the first default-deny check: torch runs these callbacks inside a torch call, where
    # the tripwire has stepped aside (F.layer_norm scored 5/5 from apply_); own names once approved any value's
    # private name (warnings.catch_warnings()._module.sys), and numpy's .ctypes led to raw memory.
    "callback_runs_unwatched": ("layernorm", "import torch\ntorch.zeros(1).apply_(lambda v: v)\n"),
    "map_runs_unwatched": ("layernorm", "import torch\nt = torch.zeros(1)\nt.map_(t, lambda a, b: a)\n"),
    "hook_runs_unwatched": ("layernorm", "import torch\ntorch.ones(1, requires_grad=True).register_hook(print)\n"),
    "private_name_of_a_library_object": (
        "layernorm",
        "import warnings\nclass Own:\n    def __init__(self):\n"
        "        self._module = self.sys = None\n"
        "found = warnings.catch_warnings()._module.sys\n",
    ),
    "ctypes_of_an_array": (
        "layernorm",
        "import numpy as np\nWORDS = ('from_address', 'value')\n"
        "found = np.random.default_rng().bit_generator.ctypes.state\n",
    ),
    # A second red team's: torch calls __index__ (and __int__, __float__) of an argument while it reads it, inside
    # the call, where the tripwire has stepped aside; a module kept as a class attribute; numpy's array interface
    # given as a keyword, which raw memory and the real builtins followed.
    "index_callback": ("layernorm", "class Box:\n    def __index__(self):\n        return 0\n"),
    "module_in_a_class": ("layernorm", "import torch.nn.functional as F\nclass Lib:\n    fn = F\n"),
    "dunder_as_a_keyword": ("layernorm", "import types\nfake = types.SimpleNamespace(__array_interface__={})\n"),
    "dunder_in_a_string": ("attention", "scope = {'__builtins__': None}\n"),
}


# A quiz sheet's answer cells that reach past the policy (issue 47: sheets ran with no static check, and could
# import builtins), and honest ones after them: the check skips each held statement, which stops its cell.
SHEET = [
    "import os\nanswer_1 = os.getcwd()\n",
    "import sys, gc, ctypes, subprocess\nanswer_2 = 'B'\n",
    "answer_3 = open('/etc/hostname').read()\n",
    "answer_4 = eval('6 * 7')\n",
    "import builtins\nanswer_5 = builtins.open\n",
    "answer_6 = 'C'\nanswer_7 = 6 * 7\n",
]
